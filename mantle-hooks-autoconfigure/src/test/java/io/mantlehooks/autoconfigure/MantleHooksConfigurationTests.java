package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.runtime.execution.HookThreadPool;
import io.mantlehooks.runtime.execution.VirtualHookExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configuration keys as a user writes them in {@code application.yml}: timeouts and their
 * precedence, limits, the executor, and the metadata IDEs read.
 */
@ExtendWith(OutputCaptureExtension.class)
class MantleHooksConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
		.withBean("timedHooks", TimedHooks.class);

	@Test
	void laneDefaultsApplyWithoutOtherConfiguration() {
		this.contextRunner.run((context) -> {
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT).timeout())
				.isEqualTo(Duration.ofMillis(500));
			assertThat(registry.everyAgent().observers(HookPoint.OUTGOING_TEXT).get(0).timeout())
				.isEqualTo(Duration.ofMillis(100));
		});
	}

	@Test
	void laneDefaultsAreConfigurable() {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.observe=150ms", "mantle.hooks.timeouts.modify=2s")
			.run((context) -> {
				HookRegistry registry = context.getBean(HookRegistry.class);
				assertThat(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT).timeout())
					.isEqualTo(Duration.ofSeconds(2));
				assertThat(registry.everyAgent().observers(HookPoint.OUTGOING_TEXT).get(0).timeout())
					.isEqualTo(Duration.ofMillis(150));
			});
	}

	@Test
	void pointTimeoutBeatsTheLaneDefaultForModifyHooksOnly() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.timeouts.point.outgoing-text=3s",
					"mantle.hooks.timeouts.point.model-request=3s")
			.run((context) -> {
				HookRegistry registry = context.getBean(HookRegistry.class);
				assertThat(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT).timeout())
					.isEqualTo(Duration.ofSeconds(3));
				assertThat(registry.everyAgent().observers(HookPoint.OUTGOING_TEXT).get(0).timeout())
					.isEqualTo(Duration.ofMillis(100));
				assertThat(registry.everyAgent().observers(HookPoint.MODEL_REQUEST).get(0).timeout())
					.as("annotation on an observer")
					.isEqualTo(Duration.ofMillis(250));
			});
	}

	@Test
	void annotationTimeoutBeatsThePointTimeout() {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.point.model-request=3s").run((context) -> {
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.everyAgent().modifier(HookPoint.MODEL_REQUEST).timeout())
				.isEqualTo(Duration.ofMillis(700));
		});
	}

	@Test
	void hookTimeoutBeatsEverythingInBracketedForm() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.timeouts.point.model-request=3s",
					"mantle.hooks.timeouts.hook[timedHooks.cool]=4s", "mantle.hooks.timeouts.hook[timedHooks.watch]=5s")
			.run((context) -> {
				HookRegistry registry = context.getBean(HookRegistry.class);
				assertThat(registry.everyAgent().modifier(HookPoint.MODEL_REQUEST).timeout())
					.isEqualTo(Duration.ofSeconds(4));
				assertThat(registry.everyAgent().observers(HookPoint.MODEL_REQUEST).get(0).timeout())
					.isEqualTo(Duration.ofSeconds(5));
			});
	}

	@Test
	void hookTimeoutWorksInUnbracketedForm() {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook.timedHooks.cool=4s").run((context) -> {
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.everyAgent().modifier(HookPoint.MODEL_REQUEST).timeout())
				.isEqualTo(Duration.ofSeconds(4));
		});
	}

	@Test
	void unparsableHookTimeoutFailsStartup() {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook.timedHooks.cool=soon").run((context) -> {
			HookDefinitionException failure = HookValidationTests.startupFailure(context);
			assertThat(failure.getMessage())
				.contains("Property 'mantle.hooks.timeouts.hook[timedHooks.cool]' is 'soon', which is not a duration.");
		});
	}

	@Test
	void hookTimeoutForUnknownHookIsReported(CapturedOutput output) {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.hook[timedHooks.missing]=4s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("mantle.hooks.timeouts.hook has entries for hooks that do not exist: "
				+ "[timedHooks.missing]; known hooks are [");
	}

	@Test
	void unknownPointFailsStartup() {
		this.contextRunner.withPropertyValues("mantle.hooks.timeouts.point.model-requets=3s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("model-requets");
		});
	}

	@Test
	void nonPositiveTimeoutsFailStartup() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.timeouts.modify=0s", "mantle.hooks.timeouts.point.model-request=-1s")
			.run((context) -> {
				HookDefinitionException failure = HookValidationTests.startupFailure(context);
				assertThat(failure.getProblems()).hasSize(2);
				assertThat(failure.getMessage())
					.contains("Property 'mantle.hooks.timeouts.modify' is PT0S, but a hook timeout must be positive.")
					.contains("Property 'mantle.hooks.timeouts.point.model-request' is PT-1S");
			});
	}

	@Test
	void theStreamingSegmentLengthIsBoundWithADefaultAndMustBePositive() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(MantleHooksProperties.class).getStreaming().getMaxSegmentLength())
			.isEqualTo(400));
		this.contextRunner.withPropertyValues("mantle.hooks.streaming.max-segment-length=80")
			.run((context) -> assertThat(
					context.getBean(MantleHooksProperties.class).getStreaming().getMaxSegmentLength())
				.isEqualTo(80));
		this.contextRunner.withPropertyValues("mantle.hooks.streaming.max-segment-length=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessage("mantle.hooks.streaming.max-segment-length must be positive, but was 0");
		});
	}

	@Test
	void nonPositiveLimitsFailStartup() {
		this.contextRunner
			.withPropertyValues("mantle.hooks.observers.max-concurrent=0", "mantle.hooks.max-iterations=0",
					"mantle.hooks.executor.pool-size=0")
			.run((context) -> {
				HookDefinitionException failure = HookValidationTests.startupFailure(context);
				assertThat(failure.getMessage())
					.contains("Property 'mantle.hooks.observers.max-concurrent' is 0, but it must be at least 1.")
					.contains("Property 'mantle.hooks.max-iterations' is 0, but it must be at least 1.")
					.contains("Property 'mantle.hooks.executor.pool-size' is 0, but it must be at least 1.");
			});
	}

	@Test
	void hookExecutorIsABoundedPoolOfPlatformThreadsByDefault() {
		this.contextRunner.run((context) -> assertThat(context.getBean("mantleHookExecutor"))
			.isInstanceOfSatisfying(HookThreadPool.class, (pool) -> {
				assertThat(pool.getHookPoolSize()).isEqualTo(200);
				assertThat(pool.getMaxPoolSize()).isEqualTo(200);
				// no thread kept while no hook runs
				assertThat(pool.getCorePoolSize()).isZero();
				assertThat(pool.getQueueCapacity()).isEqualTo(Integer.MAX_VALUE);
				assertThat(pool.getThreadNamePrefix()).isEqualTo("mantle-hook-");
			}));
		this.contextRunner.withPropertyValues("mantle.hooks.executor.pool-size=8")
			.run((context) -> assertThat(context.getBean("mantleHookExecutor")).isInstanceOfSatisfying(
					HookThreadPool.class, (pool) -> assertThat(pool.getMaxPoolSize()).isEqualTo(8)));
	}

	@Test
	@EnabledForJreRange(max = JRE.JAVA_20)
	void springBootsVirtualThreadSwitchNeedsJava21() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true")
			.run((context) -> assertThat(context.getBean("mantleHookExecutor")).isInstanceOf(HookThreadPool.class));
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void hookExecutorFollowsSpringBootsVirtualThreadSwitch() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true")
			.run((context) -> assertThat(context.getBean("mantleHookExecutor")).isInstanceOfSatisfying(
					VirtualHookExecutor.class,
					(executor) -> assertThat(executor.getThreadNamePrefix()).isEqualTo("mantle-hook-")));
		this.contextRunner
			.run((context) -> assertThat(context.getBean("mantleHookExecutor")).isInstanceOf(HookThreadPool.class));
		// the deprecated key can still keep hooks off virtual threads
		this.contextRunner
			.withPropertyValues("spring.threads.virtual.enabled=true", "mantle.hooks.executor.virtual-threads=false")
			.run((context) -> assertThat(context.getBean("mantleHookExecutor")).isInstanceOf(HookThreadPool.class));
	}

	@Test
	void userDefinedHookExecutorIsUsed() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("custom-");
		this.contextRunner.withBean("mantleHookExecutor", AsyncTaskExecutor.class, () -> executor).run((context) -> {
			assertThat(context.getBean("mantleHookExecutor")).isSameAs(executor);
			assertThat(context).hasSingleBean(HookRunner.class);
		});
	}

	@Test
	void metadataDescribesEveryKey() throws IOException {
		String json;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).isNotNull();
			json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		List<String> observe = JsonPath.read(json,
				"$.properties[?(@.name == 'mantle.hooks.timeouts.observe')].description");
		assertThat(observe).containsExactly("Default timeout of each observe hook invocation.");
		List<Object> observeDefault = JsonPath.read(json,
				"$.properties[?(@.name == 'mantle.hooks.timeouts.observe')].defaultValue");
		assertThat(observeDefault).containsExactly("100ms");
		List<Object> poolDefault = JsonPath.read(json,
				"$.properties[?(@.name == 'mantle.hooks.executor.pool-size')].defaultValue");
		assertThat(poolDefault).containsExactly(200);
		List<String> virtualReplacement = JsonPath.read(json,
				"$.properties[?(@.name == 'mantle.hooks.executor.virtual-threads')].deprecation.replacement");
		assertThat(virtualReplacement).containsExactly("spring.threads.virtual.enabled");
		List<String> spinLevel = JsonPath.read(json,
				"$.properties[?(@.name == 'mantle.hooks.executor.spin-wait')].deprecation.level");
		assertThat(spinLevel).containsExactly("error");
		List<String> names = JsonPath.read(json, "$.properties[*].name");
		assertThat(names).containsExactlyInAnyOrder("mantle.hooks.enabled", "mantle.hooks.max-iterations",
				"mantle.hooks.responses", "mantle.hooks.timeouts.observe", "mantle.hooks.timeouts.modify",
				"mantle.hooks.timeouts.point", "mantle.hooks.timeouts.hook", "mantle.hooks.observers.max-concurrent",
				"mantle.hooks.executor.virtual-threads", "mantle.hooks.executor.spin-wait",
				"mantle.hooks.executor.pool-size", "mantle.hooks.unhooked-calls",
				"mantle.hooks.streaming.max-segment-length", "mantle.hooks.modify.max-concurrent",
				"mantle.hooks.circuit-breaker.enabled", "mantle.hooks.circuit-breaker.failure-rate-threshold",
				"mantle.hooks.circuit-breaker.hook", "mantle.hooks.circuit-breaker.minimum-number-of-calls",
				"mantle.hooks.circuit-breaker.sliding-window-size", "mantle.hooks.circuit-breaker.sliding-window-type",
				"mantle.hooks.circuit-breaker.wait-duration-in-open-state", "management.endpoint.mantlehooks.access",
				"management.endpoint.mantlehooks.cache.time-to-live", "mantle.hooks.transcript.enabled",
				"mantle.hooks.transcript.store", "mantle.hooks.approvals.tools", "mantle.hooks.approvals.decided-by",
				"mantle.hooks.approvals.ttl", "mantle.hooks.approvals.store", "mantle.hooks.jdbc.initialize-schema",
				"mantle.hooks.jdbc.query-timeout", "mantle.hooks.transcript.queue-capacity",
				"mantle.hooks.console.enabled", "mantle.hooks.console.path", "mantle.hooks.console.max-turns",
				"mantle.hooks.console.include-text");
		List<String> descriptions = JsonPath.read(json, "$.properties[*].description");
		assertThat(descriptions).hasSize(names.size())
			.allSatisfy((description) -> assertThat(description).isNotBlank());
		List<String> points = JsonPath.read(json,
				"$.hints[?(@.name == 'mantle.hooks.timeouts.point.keys')].values[*].value");
		assertThat(points).containsExactlyInAnyOrderElementsOf(Arrays.stream(HookPoint.values())
			.filter((point) -> point.modifyAnnotation() != null)
			.map(HookPoint::configName)
			.toList());
		List<String> responses = JsonPath.read(json,
				"$.hints[?(@.name == 'mantle.hooks.responses.keys')].values[*].value");
		// every packaged reply name is offered, approvals' included
		List<String> packaged = Arrays.stream(HookResponses.class.getFields())
			.filter((field) -> Modifier.isStatic(field.getModifiers()) && field.getType() == String.class)
			.map((field) -> (String) ReflectionUtils.getField(field, null))
			.toList();
		assertThat(packaged).contains(HookResponses.TOOL_APPROVAL_REQUIRED, HookResponses.APPROVAL_NOT_FOUND);
		assertThat(responses).containsExactlyInAnyOrderElementsOf(packaged);
		List<String> hookTimeoutType = JsonPath.read(json,
				"$.hints[?(@.name == 'mantle.hooks.timeouts.hook.values')].providers[0].parameters.target");
		assertThat(hookTimeoutType).containsExactly("java.time.Duration");
	}

	static class TimedHooks {

		@ModifyModelRequest(timeoutMs = 700)
		ModelRequestPayload cool(ModelRequestPayload request) {
			return request;
		}

		@OnModelRequest(timeoutMs = 250)
		void watch(ModelRequestPayload request) {
		}

		@ModifyModelResponse
		ModelResponsePayload keep(ModelResponsePayload response) {
			return response;
		}

		@ModifyOutgoingText
		OutgoingTextPayload trim(OutgoingTextPayload text) {
			return text;
		}

		@OnOutgoingText
		void audit(OutgoingTextPayload text) {
		}

	}

}
