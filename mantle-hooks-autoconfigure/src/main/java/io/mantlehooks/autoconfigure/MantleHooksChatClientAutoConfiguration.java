package io.mantlehooks.autoconfigure;

import io.mantlehooks.ai.CurrentTurnPropagation;
import io.mantlehooks.ai.KnowledgeBeanPostProcessor;
import io.mantlehooks.ai.MantleChatClientCustomizer;
import io.mantlehooks.ai.MantleMcpMetaConverter;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.HookRunner;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the hook points into every {@link ChatClient} made from Spring Boot's
 * {@code ChatClient.Builder}: adding the starter is enough.
 */
@AutoConfiguration(after = MantleHooksAutoConfiguration.class,
		afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration",
		beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass(ChatClient.class)
@ConditionalOnBean(HookRunner.class)
public final class MantleHooksChatClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MantleChatClientCustomizer mantleChatClientCustomizer(HookRunner hooks, HookResponses responses,
			ObjectProvider<ToolCallingManager> toolCallingManager, MantleHooksProperties properties) {
		return new MantleChatClientCustomizer(hooks, responses,
				toolCallingManager.getIfAvailable(() -> ToolCallingManager.builder().build()),
				properties.getMaxIterations());
	}

	@Bean
	static KnowledgeBeanPostProcessor mantleKnowledgeBeanPostProcessor(ObjectProvider<HookRunner> hooks) {
		return new KnowledgeBeanPostProcessor(hooks);
	}

	@Bean
	@ConditionalOnClass(name = "reactor.core.scheduler.Schedulers")
	CurrentTurnPropagation mantleCurrentTurnPropagation() {
		return new CurrentTurnPropagation();
	}

	/**
	 * Sends tool-call hook metadata to MCP servers as {@code _meta}; Spring AI's MCP
	 * client auto-configuration picks up a single converter bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ToolContextToMcpMetaConverter.class)
	static class McpMetaConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ToolContextToMcpMetaConverter mantleMcpMetaConverter() {
			return new MantleMcpMetaConverter();
		}

	}

}
