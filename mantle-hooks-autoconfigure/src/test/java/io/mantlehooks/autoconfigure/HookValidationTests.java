package io.mantlehooks.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookProblem;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.RetryModel;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.annotation.OnOutgoingText;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.execution.HookRunner;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.aop.framework.autoproxy.BeanNameAutoProxyCreator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Startup discovery and validation of hook methods, as a user sees it: the context starts
 * with valid hooks and fails with a specific, actionable report otherwise.
 */
@ExtendWith(OutputCaptureExtension.class)
class HookValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class));

	@Test
	void rejectionNamingAnUndefinedResponseIsReportedAtStartup(CapturedOutput output) {
		this.contextRunner.withBean("typoHooks", TypoHooks.class)
			.withPropertyValues("mantle.hooks.responses.utter_no_spam=No spam here, please.")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("@ModifyIncomingMessage method 'typoHooks.screen'")
			.contains("rejects with response 'utter_no_spm', which resolves to nothing")
			.doesNotContain("response 'utter_no_spam'")
			.doesNotContain("response 'utter_outgoing_text_rejected'")
			.contains("rejects with response 'utter_in_lambda'");
	}

	@Test
	void validHooksAreDiscoveredAndSummarizedPerPoint(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(ValidHooksConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.everyAgent().modifier(HookPoint.MODEL_REQUEST)).extracting(HookMethod::name)
				.isEqualTo("validHooks.cool");
			assertThat(registry.everyAgent().observers(HookPoint.MODEL_REQUEST)).extracting(HookMethod::name)
				.containsExactly("validHooks.watch");
			assertThat(registry.everyAgent().modifier(HookPoint.MODEL_RESPONSE)).extracting(HookMethod::name)
				.isEqualTo("validHooks.retryUngrounded");
			assertThat(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.isEqualTo("validHooks.trimAsync");
			assertThat(registry.everyAgent().observers(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.containsExactly("validHooks.watchReactive");
			assertThat(registry.everyAgent().hasHooks(HookPoint.TOOL_RESULT)).isFalse();
		});
		assertThat(output).contains("Hook point model-request: modify hook 'validHooks.cool', 1 observer")
			.contains("Hook point model-response: modify hook 'validHooks.retryUngrounded', 0 observers")
			.contains("Hook point outgoing-text: modify hook 'validHooks.trimAsync', 1 observer")
			.doesNotContain("Hook point tool-result");
	}

	@Test
	void secondModifyHookOnSamePointFailsStartupNamingBothMethods() {
		this.contextRunner.withUserConfiguration(ValidHooksConfiguration.class, SecondModifierConfiguration.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				assertThat(failure.getMessage()).contains("Point model-request has 2 modify hooks")
					.contains("@ModifyModelRequest method 'validHooks.cool'")
					.contains("@ModifyModelRequest method 'secondModifier.alsoCool'");
				FailureAnalysis analysis = analyze(failure);
				assertThat(analysis.getDescription()).contains("validHooks.cool").contains("secondModifier.alsoCool");
				assertThat(analysis.getAction()).contains("Keep one @ModifyModelRequest method")
					.contains("@OnModelRequest");
			});
	}

	@Test
	void twoHookAnnotationsOnOneMethodFailStartup() {
		this.contextRunner.withUserConfiguration(TwoAnnotationsConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("Method 'twoAnnotations.both'")
				.contains("has 2 hook annotations (@ModifyModelRequest, @OnModelRequest)");
			assertThat(analyze(failure).getAction()).contains("Keep one hook annotation on the method");
		});
	}

	@Test
	void hookWithoutParameterFailsStartup() {
		this.contextRunner.withUserConfiguration(NoParameterConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage())
				.contains("@OnOutgoingText method 'noParameter.watch' (" + NoParameterHooks.class.getName() + ".watch)")
				.contains("must take exactly one parameter of type OutgoingTextPayload, but takes ()");
			assertThat(analyze(failure).getAction()).contains("'void watch(OutgoingTextPayload payload)'");
		});
	}

	@Test
	void hookWithWrongParameterTypeFailsStartup() {
		this.contextRunner.withUserConfiguration(WrongParameterConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@ModifyModelRequest method 'wrongParameter.cool'")
				.contains(
						"must take exactly one parameter of type ModelRequestPayload, but takes (ModelResponsePayload)");
		});
	}

	@Test
	void hookWithTwoParametersFailsStartup() {
		this.contextRunner.withUserConfiguration(TwoParametersConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("but takes (OutgoingTextPayload, String)");
		});
	}

	@Test
	void hooksWithWrongReturnTypesFailStartupListingEachProblem() {
		this.contextRunner.withUserConfiguration(WrongReturnTypesConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getProblems()).hasSize(4);
			assertThat(failure.getMessage())
				.contains("@ModifyModelRequest method 'wrongReturns.returnsNothing' ("
						+ WrongReturnTypesHooks.class.getName()
						+ ".returnsNothing) returns void, but a modify hook must return ModelRequestPayload, "
						+ "CompletionStage<ModelRequestPayload> or Mono<ModelRequestPayload>")
				.contains("'wrongReturns.returnsString' (" + WrongReturnTypesHooks.class.getName()
						+ ".returnsString) returns java.lang.String, but an observe hook must return void, "
						+ "CompletionStage<Void> or Mono<Void>")
				.contains("returns java.util.concurrent.CompletionStage<java.lang.String>")
				.contains("returns reactor.core.publisher.Mono<io.mantlehooks.OutgoingTextPayload>");
			assertThat(analyze(failure).getAction()).contains("Return the payload, rewritten with its with... methods")
				.contains("Make the method return void");
		});
	}

	@Test
	void declaredSignalAtPointThatDoesNotSupportItFailsStartup() {
		this.contextRunner.withUserConfiguration(DeclaredSignalConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@ModifyModelRequest method 'declaredSignal.cool'")
				.contains(
						"throws RetryModel (declared in its throws clause), but model-request hooks support no control signal");
			assertThat(analyze(failure).getAction())
				.contains("RetryModel is allowed only in @ModifyModelResponse and @ModifyToolCall");
		});
	}

	@Test
	void retryModelConstructedInModifyModelRequestFailsStartup() {
		this.contextRunner.withUserConfiguration(ThrownRetryInRequestConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getProblems()).singleElement()
				.satisfies((problem) -> assertThat(problem.description())
					.isEqualTo("@ModifyModelRequest method 'thrownRetry.cool' ("
							+ ThrownRetryInRequestHooks.class.getName()
							+ ".cool) throws RetryModel (constructed in its body), but model-request hooks support no control signal."));
		});
	}

	@Test
	void retryModelConstructedInModifyModelResponseIsAccepted() {
		this.contextRunner.withUserConfiguration(ValidHooksConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void signalConstructedInsideLambdaOfHookFailsStartup() {
		this.contextRunner.withUserConfiguration(LambdaSignalConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@ModifyToolCall method 'lambdaSignal.guard'")
				.contains(
						"throws HookRejection (constructed in its body), but tool-call hooks support only RetryModel");
		});
	}

	@Test
	void anySignalInObserveHookFailsStartup() {
		this.contextRunner.withUserConfiguration(ObserverSignalConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@OnOutgoingText method 'observerSignal.watch'")
				.contains(
						"throws HookRejection (constructed in its body), but observe hooks support no control signal");
		});
	}

	@Test
	void hookRejectionIsAcceptedWhereThePointSupportsIt() {
		this.contextRunner.withUserConfiguration(RejectionHooksConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void nonPositiveAnnotationTimeoutFailsStartup() {
		this.contextRunner.withUserConfiguration(ZeroTimeoutConfiguration.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@OnOutgoingText method 'zeroTimeout.watch'")
				.contains("declares timeoutMs = 0, but a timeout must be positive");
		});
	}

	@Test
	void composedAnnotationIsDiscovered() {
		this.contextRunner.withUserConfiguration(ComposedAnnotationConfiguration.class).run((context) -> {
			HookMethod modifier = context.getBean(HookRegistry.class).everyAgent().modifier(HookPoint.MODEL_REQUEST);
			assertThat(modifier).isNotNull();
			assertThat(modifier.name()).isEqualTo("composedHooks.cool");
			assertThat(modifier.timeout()).hasMillis(1234);
		});
	}

	@Test
	void hookOnProxiedBeanIsInvokedThroughTheProxy() {
		this.contextRunner.withUserConfiguration(ProxiedHooksConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HookRunner runner = context.getBean(HookRunner.class);
			OutgoingTextPayload payload = new OutgoingTextPayload("hi", false, "u1", null, null);
			assertThat(runner.runAndWait(HookPoint.OUTGOING_TEXT, payload, HookScope.none()))
				.isEqualTo(new ModifyResult.Proceed<>(payload.withText("HI")));
			assertThat(context.getBean("invocations", AtomicInteger.class)).hasValue(1);
		});
	}

	@Test
	void disabledHooksAreNeitherDiscoveredNorValidated() {
		this.contextRunner.withPropertyValues("mantle.hooks.enabled=false")
			.withUserConfiguration(TwoAnnotationsConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(HookRunner.class).doesNotHaveBean(HookRegistry.class);
			});
	}

	@Test
	void problemsOfSeveralBeansAreReportedTogether() {
		this.contextRunner.withUserConfiguration(NoParameterConfiguration.class, DeclaredSignalConfiguration.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				assertThat(failure.getProblems()).hasSize(2);
				assertThat(failure.getMessage()).startsWith("Invalid mantle-hooks definitions:\n - ");
			});
	}

	@Test
	void twoModifyHooksOfOneAgentAtOnePointFailStartupNamingTheAgentAndBothMethods() {
		this.contextRunner.withUserConfiguration(SupportRedactionConfiguration.class, SupportCoolingConfiguration.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				assertThat(failure.getProblems()).singleElement()
					.satisfies((problem) -> assertThat(problem.description())
						.startsWith("Point model-request has 2 modify hooks in agent 'support', but at most one per "
								+ "agent is allowed")
						.contains("@ModifyModelRequest method 'supportRedaction.redact'")
						.contains("@ModifyModelRequest method 'supportCooling.cool'"));
			});
	}

	@Test
	void aModifyHookOfEveryAgentCountsInTheAgentOfAnotherModifyHook() {
		this.contextRunner.withUserConfiguration(ValidHooksConfiguration.class, SupportRedactionConfiguration.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				assertThat(failure.getMessage()).contains("Point model-request has 2 modify hooks in agent 'support'")
					.contains("(a modify hook without @ForAgent counts in every agent)")
					.contains("@ModifyModelRequest method 'validHooks.cool'")
					.contains("@ModifyModelRequest method 'supportRedaction.redact'");
				FailureAnalysis analysis = analyze(failure);
				assertThat(analysis.getDescription())
					.contains("Point model-request has 2 modify hooks in agent 'support'")
					.contains("validHooks.cool")
					.contains("supportRedaction.redact");
				assertThat(analysis.getAction()).contains("Keep one @ModifyModelRequest method for agent 'support'")
					.contains("scope the hook without @ForAgent to the other agents")
					.contains("@OnModelRequest");
			});
	}

	@Test
	void modifyHooksOfDifferentAgentsAtOnePointStartAndEachAgentRunsItsOwn(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(AgentSignaturesConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.agents()).containsExactlyInAnyOrder("support", "billing");
			assertThat(registry.forAgent("support").modifier(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.isEqualTo("supportSignature.sign");
			assertThat(registry.forAgent("billing").modifier(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.isEqualTo("billingSignature.sign");
			assertThat(registry.everyAgent().modifier(HookPoint.OUTGOING_TEXT)).isNull();
			HookRunner runner = context.getBean(HookRunner.class);
			assertThat(signed(runner, "support")).isEqualTo("Hello -- support");
			assertThat(signed(runner, "billing")).isEqualTo("Hello -- billing");
			// a client that names no agent runs neither
			assertThat(signed(runner, MantleHooks.DEFAULT_AGENT)).isEqualTo("Hello");
		});
		assertThat(output)
			.contains("Hook point outgoing-text in agent 'support': modify hook 'supportSignature.sign', 0 observers")
			.contains("Hook point outgoing-text in agent 'billing': modify hook 'billingSignature.sign', 0 observers");
	}

	@Test
	void forAgentWithoutAnyNameFailsStartup() {
		this.contextRunner.withBean("noAgent", NoAgentHooks.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@OnOutgoingText method 'noAgent.watch'")
				.contains("has @ForAgent without any agent name (on its method), so it would run in no turn");
			assertThat(analyze(failure).getAction()).contains("Name the agents, e.g. @ForAgent(\"support\")");
		});
	}

	@Test
	void forAgentWithoutAnyNameOnAClassFailsStartupNamingTheClass() {
		this.contextRunner.withBean("noAgentClass", NoAgentClassHooks.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@OnOutgoingText method 'noAgentClass.watch'")
				.contains("has @ForAgent without any agent name (on its class " + NoAgentClassHooks.class.getName()
						+ ")");
		});
	}

	@Test
	void blankAndInvalidAgentNamesFailStartupWithTheNameRule() {
		this.contextRunner.withBean("badNames", BadAgentNameHooks.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getProblems()).hasSize(2);
			assertThat(failure.getMessage()).contains("@OnOutgoingText method 'badNames.blank'")
				.contains("has an invalid @ForAgent name (on its method): an agent name must not be empty or blank")
				.contains("@OnModelRequest method 'badNames.spaced'")
				.contains("has an invalid @ForAgent name (on its method): agent name 'sup port' may only hold "
						+ "letters, digits, '.', '_' and '-', starting with a letter or digit");
			assertThat(analyze(failure).getAction())
				.contains("Use the name the ChatClient gives to MantleHooks.agent(...)");
		});
	}

	@Test
	void aModifyHookWithAnInvalidForAgentIsReportedForItsNameOnlyNotAsAConflict() {
		this.contextRunner.withUserConfiguration(ValidHooksConfiguration.class)
			.withBean("misnamed", MisnamedModifierHooks.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				// the hooks run in no turn or in no valid agent: counting them in a
				// modify
				// hook conflict would send the user after a problem that is not there
				assertThat(failure.getProblems()).extracting(HookProblem::description)
					.containsExactlyInAnyOrder("@ModifyModelRequest method 'misnamed.unnamed' ("
							+ MisnamedModifierHooks.class.getName()
							+ ".unnamed) has @ForAgent without any agent name (on its method), so it would run in "
							+ "no turn.",
							"@ModifyModelRequest method 'misnamed.spaced' (" + MisnamedModifierHooks.class.getName()
									+ ".spaced) has an invalid @ForAgent name (on its method): agent name 'sup port' "
									+ "may only hold letters, digits, '.', '_' and '-', starting with a letter or "
									+ "digit.",
							"@ModifyModelRequest method 'misnamed.spaced' (" + MisnamedModifierHooks.class.getName()
									+ ".spaced) must take exactly one parameter of type ModelRequestPayload, but "
									+ "takes ().");
			});
	}

	@Test
	void forAgentOnAClassScopesEveryHookMethodAndAMethodsOwnWins() {
		this.contextRunner.withBean("supportClass", SupportClassHooks.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HookRegistry registry = context.getBean(HookRegistry.class);
			HookRegistry.HookSet support = registry.forAgent("support");
			assertThat(support.modifier(HookPoint.MODEL_REQUEST)).extracting(HookMethod::name)
				.isEqualTo("supportClass.redact");
			assertThat(support.observers(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.containsExactly("supportClass.watch");
			assertThat(support.modifier(HookPoint.MODEL_RESPONSE)).isNull();
			HookRegistry.HookSet billing = registry.forAgent("billing");
			assertThat(billing.modifier(HookPoint.MODEL_RESPONSE)).extracting(HookMethod::name)
				.isEqualTo("supportClass.billingOnly");
			assertThat(billing.hooks()).extracting(HookMethod::name).containsExactly("supportClass.billingOnly");
			assertThat(registry.everyAgent().hooks()).isEmpty();
			assertThat(registry.hooks()).extracting(HookMethod::name, HookMethod::agents)
				.containsExactlyInAnyOrder(tuple("supportClass.redact", Set.of("support")),
						tuple("supportClass.billingOnly", Set.of("billing")),
						tuple("supportClass.watch", Set.of("support")));
		});
	}

	@Test
	void forAgentOnAClassCountsForEachMethodInTheModifyHookCheck() {
		this.contextRunner.withUserConfiguration(SupportRedactionConfiguration.class)
			.withBean("supportClass", SupportClassHooks.class)
			.run((context) -> {
				HookDefinitionException failure = startupFailure(context);
				assertThat(failure.getMessage()).contains("Point model-request has 2 modify hooks in agent 'support'")
					.contains("'supportClass.redact'")
					.contains("'supportRedaction.redact'");
			});
	}

	@Test
	void composedAnnotationsCarryingForAgentScopeTheirHooks() {
		this.contextRunner.withBean("composedAgent", ComposedAgentHooks.class)
			.withBean("composedClass", ComposedAgentClassHooks.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				HookRegistry registry = context.getBean(HookRegistry.class);
				assertThat(registry.forAgent("support").modifier(HookPoint.MODEL_REQUEST)).extracting(HookMethod::name)
					.isEqualTo("composedAgent.redact");
				assertThat(registry.forAgent("billing").modifier(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
					.isEqualTo("composedClass.sign");
				assertThat(registry.forAgent("support").modifier(HookPoint.OUTGOING_TEXT)).isNull();
				assertThat(registry.everyAgent().hooks()).isEmpty();
			});
	}

	@Test
	void aComposedForAgentWithAnInvalidNameFailsStartup() {
		this.contextRunner.withBean("badComposed", BadComposedAgentHooks.class).run((context) -> {
			HookDefinitionException failure = startupFailure(context);
			assertThat(failure.getMessage()).contains("@ModifyModelRequest method 'badComposed.redact'")
				.contains("agent name 'sup port' may only hold letters");
		});
	}

	private static String signed(HookRunner runner, String agent) {
		OutgoingTextPayload payload = new OutgoingTextPayload("Hello", false, "u1", null, null);
		ModifyResult<OutgoingTextPayload> result = runner.runAndWait(HookPoint.OUTGOING_TEXT, payload,
				HookScope.none().withAgent(agent));
		assertThat(result).isInstanceOf(ModifyResult.Proceed.class);
		return ((ModifyResult.Proceed<OutgoingTextPayload>) result).payload().text();
	}

	@Test
	void failureAnalyzerIsRegisteredWithSpringBoot() {
		// other analyzers on the class path need constructor arguments; skip those
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {
			}))).hasAtLeastOneElementOfType(HookDefinitionFailureAnalyzer.class);
	}

	static HookDefinitionException startupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof HookDefinitionException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("startup failure caused by HookDefinitionException").isNotNull();
		return (HookDefinitionException) failure;
	}

	static FailureAnalysis analyze(HookDefinitionException failure) {
		FailureAnalysis analysis = new HookDefinitionFailureAnalyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).startsWith("mantle-hooks found problems");
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class ValidHooksConfiguration {

		@Bean
		ValidHooks validHooks() {
			return new ValidHooks();
		}

	}

	static class ValidHooks {

		@ModifyModelRequest
		ModelRequestPayload cool(ModelRequestPayload request) {
			return request.withModelSettings(request.modelSettings().withTemperature(0.2));
		}

		@OnModelRequest
		void watch(ModelRequestPayload request) {
		}

		@ModifyModelResponse
		ModelResponsePayload retryUngrounded(ModelResponsePayload response) {
			if (response.text() == null) {
				throw new RetryModel("Answer in text.");
			}
			return response;
		}

		@ModifyOutgoingText
		CompletionStage<OutgoingTextPayload> trimAsync(OutgoingTextPayload text) {
			return CompletableFuture.completedFuture(text.withText(text.text().trim()));
		}

		@OnOutgoingText
		Mono<Void> watchReactive(OutgoingTextPayload text) {
			return Mono.empty();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondModifierConfiguration {

		@Bean
		SecondModifier secondModifier() {
			return new SecondModifier();
		}

	}

	static class SecondModifier {

		@ModifyModelRequest
		ModelRequestPayload alsoCool(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoAnnotationsConfiguration {

		@Bean
		TwoAnnotations twoAnnotations() {
			return new TwoAnnotations();
		}

	}

	static class TwoAnnotations {

		@ModifyModelRequest
		@OnModelRequest
		ModelRequestPayload both(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoParameterConfiguration {

		@Bean
		NoParameterHooks noParameter() {
			return new NoParameterHooks();
		}

	}

	static class NoParameterHooks {

		@OnOutgoingText
		void watch() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrongParameterConfiguration {

		@Bean
		WrongParameterHooks wrongParameter() {
			return new WrongParameterHooks();
		}

	}

	static class WrongParameterHooks {

		@ModifyModelRequest
		ModelResponsePayload cool(ModelResponsePayload response) {
			return response;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoParametersConfiguration {

		@Bean
		TwoParametersHooks twoParameters() {
			return new TwoParametersHooks();
		}

	}

	static class TwoParametersHooks {

		@OnOutgoingText
		void watch(OutgoingTextPayload text, String extra) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrongReturnTypesConfiguration {

		@Bean
		WrongReturnTypesHooks wrongReturns() {
			return new WrongReturnTypesHooks();
		}

	}

	static class WrongReturnTypesHooks {

		@ModifyModelRequest
		void returnsNothing(ModelRequestPayload request) {
		}

		@OnOutgoingText
		String returnsString(OutgoingTextPayload text) {
			return text.text();
		}

		@ModifyIncomingMessage
		CompletionStage<String> returnsStageOfString(IncomingMessagePayload message) {
			return CompletableFuture.completedFuture(message.text());
		}

		@OnModelRequest
		Mono<OutgoingTextPayload> returnsMonoOfPayload(ModelRequestPayload request) {
			return Mono.empty();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DeclaredSignalConfiguration {

		@Bean
		DeclaredSignalHooks declaredSignal() {
			return new DeclaredSignalHooks();
		}

	}

	static class DeclaredSignalHooks {

		@ModifyModelRequest
		ModelRequestPayload cool(ModelRequestPayload request) throws RetryModel {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ThrownRetryInRequestConfiguration {

		@Bean
		ThrownRetryInRequestHooks thrownRetry() {
			return new ThrownRetryInRequestHooks();
		}

	}

	static class ThrownRetryInRequestHooks {

		@ModifyModelRequest
		ModelRequestPayload cool(ModelRequestPayload request) {
			if (request.messages().isEmpty()) {
				throw new RetryModel("Say something.");
			}
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LambdaSignalConfiguration {

		@Bean
		LambdaSignalHooks lambdaSignal() {
			return new LambdaSignalHooks();
		}

	}

	static class LambdaSignalHooks {

		@ModifyToolCall
		CompletionStage<ToolCallPayload> guard(ToolCallPayload call) {
			return CompletableFuture.supplyAsync(() -> {
				if (call.toolName().isEmpty()) {
					throw new HookRejection("no tool");
				}
				return call;
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ObserverSignalConfiguration {

		@Bean
		ObserverSignalHooks observerSignal() {
			return new ObserverSignalHooks();
		}

	}

	static class ObserverSignalHooks {

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
			if (text.text().contains("secret")) {
				throw new HookRejection("secret");
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RejectionHooksConfiguration {

		@Bean
		RejectionHooks rejectionHooks() {
			return new RejectionHooks();
		}

	}

	static class RejectionHooks {

		@ModifyIncomingMessage
		IncomingMessagePayload dropSpam(IncomingMessagePayload message) throws HookRejection {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam detected", "utter_spam_rejected");
			}
			return message;
		}

		@ModifyOutgoingText
		OutgoingTextPayload dropLeaks(OutgoingTextPayload text) {
			if (text.text().contains("password")) {
				throw new HookRejection("leak");
			}
			return text;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroTimeoutConfiguration {

		@Bean
		ZeroTimeoutHooks zeroTimeout() {
			return new ZeroTimeoutHooks();
		}

	}

	static class ZeroTimeoutHooks {

		@OnOutgoingText(timeoutMs = 0)
		void watch(OutgoingTextPayload text) {
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@ModifyModelRequest(timeoutMs = 1234)
	@interface CoolingHook {

	}

	@Configuration(proxyBeanMethods = false)
	static class ComposedAnnotationConfiguration {

		@Bean
		ComposedHooks composedHooks() {
			return new ComposedHooks();
		}

	}

	static class ComposedHooks {

		@CoolingHook
		ModelRequestPayload cool(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SupportRedactionConfiguration {

		@Bean
		SupportRedaction supportRedaction() {
			return new SupportRedaction();
		}

	}

	@ForAgent("support")
	static class SupportRedaction {

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SupportCoolingConfiguration {

		@Bean
		SupportCooling supportCooling() {
			return new SupportCooling();
		}

	}

	static class SupportCooling {

		@ModifyModelRequest
		@ForAgent("support")
		ModelRequestPayload cool(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AgentSignaturesConfiguration {

		@Bean
		SupportSignature supportSignature() {
			return new SupportSignature();
		}

		@Bean
		BillingSignature billingSignature() {
			return new BillingSignature();
		}

	}

	static class SupportSignature {

		@ModifyOutgoingText
		@ForAgent("support")
		OutgoingTextPayload sign(OutgoingTextPayload text) {
			return text.withText(text.text() + " -- support");
		}

	}

	static class BillingSignature {

		@ModifyOutgoingText
		@ForAgent("billing")
		OutgoingTextPayload sign(OutgoingTextPayload text) {
			return text.withText(text.text() + " -- billing");
		}

	}

	static class NoAgentHooks {

		@OnOutgoingText
		@ForAgent({})
		void watch(OutgoingTextPayload text) {
		}

	}

	@ForAgent({})
	static class NoAgentClassHooks {

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
		}

	}

	static class BadAgentNameHooks {

		@OnOutgoingText
		@ForAgent(" ")
		void blank(OutgoingTextPayload text) {
		}

		@OnModelRequest
		@ForAgent("sup port")
		void spaced(ModelRequestPayload request) {
		}

	}

	static class MisnamedModifierHooks {

		@ModifyModelRequest
		@ForAgent({})
		ModelRequestPayload unnamed(ModelRequestPayload request) {
			return request;
		}

		@ModifyModelRequest
		@ForAgent("sup port")
		ModelRequestPayload spaced() {
			return null;
		}

	}

	@ForAgent("support")
	static class SupportClassHooks {

		@ModifyModelRequest
		ModelRequestPayload redact(ModelRequestPayload request) {
			return request;
		}

		@OnOutgoingText
		void watch(OutgoingTextPayload text) {
		}

		@ModifyModelResponse
		@ForAgent("billing")
		ModelResponsePayload billingOnly(ModelResponsePayload response) {
			return response;
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@ModifyModelRequest
	@ForAgent("support")
	@interface SupportRequestHook {

	}

	@Target(ElementType.TYPE)
	@Retention(RetentionPolicy.RUNTIME)
	@ForAgent("billing")
	@interface BillingAgent {

	}

	static class ComposedAgentHooks {

		@SupportRequestHook
		ModelRequestPayload redact(ModelRequestPayload request) {
			return request;
		}

	}

	@BillingAgent
	static class ComposedAgentClassHooks {

		@ModifyOutgoingText
		OutgoingTextPayload sign(OutgoingTextPayload text) {
			return text;
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@ModifyModelRequest
	@ForAgent("sup port")
	@interface BadAgentRequestHook {

	}

	static class BadComposedAgentHooks {

		@BadAgentRequestHook
		ModelRequestPayload redact(ModelRequestPayload request) {
			return request;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ProxiedHooksConfiguration {

		@Bean
		AtomicInteger invocations() {
			return new AtomicInteger();
		}

		@Bean
		MethodInterceptor countingInterceptor(AtomicInteger invocations) {
			return (invocation) -> {
				invocations.incrementAndGet();
				return invocation.proceed();
			};
		}

		@Bean
		static BeanNameAutoProxyCreator proxyCreator() {
			BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
			creator.setBeanNames("proxiedHooks");
			creator.setInterceptorNames("countingInterceptor");
			creator.setProxyTargetClass(true);
			return creator;
		}

		@Bean
		ProxiedHooks proxiedHooks() {
			return new ProxiedHooks();
		}

	}

	static class ProxiedHooks {

		@ModifyOutgoingText
		OutgoingTextPayload shout(OutgoingTextPayload text) {
			return text.withText(text.text().toUpperCase());
		}

	}

	static class TypoHooks {

		@io.mantlehooks.annotation.ModifyIncomingMessage
		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_no_spm");
			}
			if (message.text().contains("ham")) {
				throw new HookRejection("ham", "utter_no_spam");
			}
			return message;
		}

		@io.mantlehooks.annotation.ModifyOutgoingText
		CompletionStage<OutgoingTextPayload> reply(OutgoingTextPayload outgoing) {
			return CompletableFuture.supplyAsync(() -> {
				if (outgoing.text().contains("secret")) {
					throw new HookRejection("leak", "utter_in_lambda");
				}
				if (outgoing.text().contains("x")) {
					throw new HookRejection("packaged", "utter_outgoing_text_rejected");
				}
				return outgoing;
			});
		}

	}

}
