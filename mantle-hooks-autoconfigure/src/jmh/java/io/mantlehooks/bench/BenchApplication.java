package io.mantlehooks.bench;

import java.util.List;
import java.util.Map;

import io.mantlehooks.ai.chat.MantleChatClientCustomizer;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksChatClientAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksConsoleAutoConfiguration;
import io.mantlehooks.autoconfigure.MantleHooksStoresAutoConfiguration;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A minimal application with Spring AI's {@code ChatClient} and mantle-hooks, a stub
 * model and, optionally, one hook bean: what a benchmark variant measures.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class,
		MantleHooksAutoConfiguration.class, MantleHooksChatClientAutoConfiguration.class })
class BenchApplication {

	/**
	 * Start an application.
	 * @param model the stub model
	 * @param hooks the hook bean's class, or {@code null} for none
	 * @param properties extra properties
	 * @return the running context
	 */
	static ConfigurableApplicationContext start(ChatModel model, @Nullable Class<?> hooks,
			Map<String, Object> properties) {
		return start(model, hooks, properties, false);
	}

	/**
	 * Start an application, optionally with an observation registry and the turn console
	 * (when {@code mantle.hooks.console.enabled} is set).
	 * @param model the stub model
	 * @param hooks the hook bean's class, or {@code null} for none
	 * @param properties extra properties
	 * @param observed whether to add Boot's observation registry
	 * @return the running context
	 */
	static ConfigurableApplicationContext start(ChatModel model, @Nullable Class<?> hooks,
			Map<String, Object> properties, boolean observed) {
		Class<?>[] sources = observed ? new Class<?>[] { BenchApplication.class, Observed.class }
				: new Class<?>[] { BenchApplication.class };
		return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(properties)
			.properties("logging.level.root=warn")
			.initializers((context) -> {
				GenericApplicationContext generic = (GenericApplicationContext) context;
				generic.registerBean("chatModel", ChatModel.class, () -> model);
				if (hooks != null) {
					generic.registerBean(hooks);
				}
			})
			.run();
	}

	/**
	 * Boot's observation registry and the turn console's recorder.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ObservationAutoConfiguration.class, MantleHooksStoresAutoConfiguration.class,
			MantleHooksConsoleAutoConfiguration.class })
	static class Observed {

	}

	static ChatClient chatClient(ConfigurableApplicationContext context) {
		return context.getBean(ChatClient.Builder.class).build();
	}

}
