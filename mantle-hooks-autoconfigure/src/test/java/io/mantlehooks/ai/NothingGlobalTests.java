package io.mantlehooks.ai;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;

import io.mantlehooks.ai.turn.CurrentTurn;
import io.mantlehooks.test.LoopbackOpenAiServer;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starting an application with the starter, with or without hooks, leaves Reactor's
 * global hooks as they were; the current turn is registered with Micrometer's context
 * registry only while an application with hooks runs. (That identity still reaches
 * retrievers and tools on Reactor's schedulers and RAG's executor is shown in
 * {@link KnowledgeTurnTests}.)
 */
class NothingGlobalTests {

	private final LoopbackOpenAiServer openAi = new LoopbackOpenAiServer();

	private final ApplicationContextRunner contextRunner = ChatTestSupport.contextRunner(this.openAi);

	@AfterEach
	void stopServer() {
		this.openAi.close();
	}

	@Test
	void anApplicationWithHooksLeavesReactorsGlobalHooksAsTheyWere() {
		Map<String, Object> before = reactorHooks();
		Runnable task = () -> {
		};
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(Schedulers.onSchedule(task)).isSameAs(task);
			assertThat(reactorHooks()).isEqualTo(before);
			assertThat(currentTurnRegistered()).isTrue();
		});
		assertThat(reactorHooks()).isEqualTo(before);
		assertThat(currentTurnRegistered()).isFalse();
	}

	@Test
	void anApplicationWithoutHooksRegistersNothing() {
		Map<String, Object> before = reactorHooks();
		Runnable task = () -> {
		};
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(Schedulers.onSchedule(task)).isSameAs(task);
			assertThat(reactorHooks()).isEqualTo(before);
			assertThat(currentTurnRegistered()).isFalse();
		});
		assertThat(reactorHooks()).isEqualTo(before);
	}

	@Test
	void twoApplicationsShareTheRegistrationUntilTheLastCloses() {
		this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class).run((first) -> {
			this.contextRunner.withBean("scriptedHooks", ScriptedHooks.class)
				.run((second) -> assertThat(currentTurnRegistered()).isTrue());
			assertThat(currentTurnRegistered()).isTrue();
		});
		assertThat(currentTurnRegistered()).isFalse();
	}

	private static boolean currentTurnRegistered() {
		for (ThreadLocalAccessor<?> accessor : ContextRegistry.getInstance().getThreadLocalAccessors()) {
			if (CurrentTurn.KEY.equals(accessor.key())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Every static, non-final field of Reactor's {@link Hooks} (the operator, error and
	 * propagation hooks), and whether automatic context propagation is on.
	 */
	private static Map<String, Object> reactorHooks() {
		Map<String, Object> hooks = new LinkedHashMap<>();
		for (Field field : Hooks.class.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) && !Modifier.isFinal(field.getModifiers())) {
				field.setAccessible(true);
				try {
					hooks.put(field.getName(), String.valueOf(field.get(null)));
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}
		hooks.put("automaticContextPropagation", Hooks.isAutomaticContextPropagationEnabled());
		return hooks;
	}

}
