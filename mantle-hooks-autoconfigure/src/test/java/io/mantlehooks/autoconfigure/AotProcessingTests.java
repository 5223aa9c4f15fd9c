package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookPoint;
import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.MantleHooks;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ai.KeywordEmbeddingModel;
import io.mantlehooks.ai.knowledge.KnowledgeBeanPostProcessor;
import io.mantlehooks.annotation.ForAgent;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.runtime.HookMethod;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookScope;
import io.mantlehooks.runtime.execution.HookRunner;
import org.junit.jupiter.api.Test;

import org.springframework.ai.vectorstore.SimpleVectorStore;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.aot.AotProcessingException;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the AOT build ({@code spring-boot:process-aot}) makes of an application with
 * hooks: reflection hints for the hook methods and payloads, the bytecode check recorded
 * for a native image, proxy classes generated ahead of time, and a build that fails on a
 * bad hook.
 */
class AotProcessingTests {

	@Test
	void hookMethodsAndPayloadsAreRegisteredForReflection() {
		Generated generated = process(GoodHooks.class);
		RuntimeHints hints = generated.context().getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(GoodHooks.class, "screen")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(GoodHooks.class, "audit")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ModelRequestPayload.class, "withMessages"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/mantle-hooks/bytecode-checks.properties"))
			.accepts(hints);
	}

	@Test
	void theBytecodeCheckIsRecordedForTheNativeImage() throws IOException {
		Generated generated = process(GoodHooks.class);
		String recorded = generated.files()
			.getGeneratedFileContent(GeneratedFiles.Kind.RESOURCE, "META-INF/mantle-hooks/bytecode-checks.properties");
		String screen = GoodHooks.class.getName() + "\\#screen(Lio/mantlehooks/IncomingMessagePayload;)"
				+ "Lio/mantlehooks/IncomingMessagePayload;";
		assertThat(recorded).contains(screen + ".signals=io.mantlehooks.HookRejection")
			.contains(screen + ".rejection-names=utter_no_spam")
			.contains(GoodHooks.class.getName() + "\\#audit(Lio/mantlehooks/ModelRequestPayload;)V.signals=\n");
	}

	@Test
	void aBadHookFailsTheBuild() {
		assertThatExceptionOfType(AotProcessingException.class).isThrownBy(() -> process(BadHooks.class))
			.withCauseInstanceOf(HookDefinitionException.class)
			.withMessageContaining("@ModifyModelRequest method 'hooks.cool'")
			.withMessageContaining("must take exactly one parameter of type ModelRequestPayload");
	}

	@Test
	void knowledgeProxiesAreGeneratedAheadOfTimeAndUsedAtRunTime() {
		Generated generated = process(GoodHooks.class, StoreConfiguration.class);
		assertThat(generated.files().getGeneratedFiles(GeneratedFiles.Kind.CLASS).keySet()).anySatisfy(
				(name) -> assertThat(name).startsWith(AotStore.class.getName().replace('.', '/') + "$$SpringCGLIB$$"));
		// the proxy made at run time is of the class made ahead of time
		KnowledgeBeanPostProcessor processor = new KnowledgeBeanPostProcessor(
				new StaticListableBeanFactory().getBeanProvider(HookRunner.class));
		Class<?> ahead = processor.determineBeanType(AotStore.class, "store");
		Object proxy = processor.postProcessAfterInitialization(StoreConfiguration.store(), "store");
		assertThat(ahead).isNotEqualTo(AotStore.class);
		assertThat(proxy.getClass()).isSameAs(ahead);
	}

	@Test
	void aPerAgentConflictFailsTheBuildAsItFailsStartup() {
		AtomicReference<String> startup = new AtomicReference<>();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MantleHooksAutoConfiguration.class))
			.withBean("hooks", AgentConflictHooks.class)
			.run((context) -> startup.set(HookValidationTests.startupFailure(context).getMessage()));
		String atStartup = startup.get();
		assertThat(atStartup).contains("Point model-request has 2 modify hooks in agent 'support'");
		assertThatExceptionOfType(AotProcessingException.class).isThrownBy(() -> process(AgentConflictHooks.class))
			.havingCause()
			.isInstanceOf(HookDefinitionException.class)
			.withMessage(atStartup)
			.withMessageContaining("@ModifyModelRequest method 'hooks.cool'")
			.withMessageContaining("@ModifyModelRequest method 'hooks.redact'");
	}

	@Test
	void anAgentScopedHookRunsOnlyInTurnsOfItsAgentInTheApplicationBuiltAheadOfTime() throws Exception {
		Generated generated = process(ClassName.get(AotProcessingTests.class.getPackageName(), "AgentAotApp"),
				AgentHooks.class);
		ApplicationContextInitializer<GenericApplicationContext> initializer = GeneratedCode.load(generated.files(),
				AotProcessingTests.class);
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			initializer.initialize(context);
			context.refresh();
			HookRegistry registry = context.getBean(HookRegistry.class);
			assertThat(registry.agents()).containsExactly("support");
			assertThat(registry.forAgent("support").modifier(HookPoint.OUTGOING_TEXT)).extracting(HookMethod::name)
				.isEqualTo("hooks.sign");
			assertThat(registry.everyAgent().hooks()).isEmpty();
			HookRunner runner = context.getBean(HookRunner.class);
			assertThat(sent(runner, "support")).isEqualTo("Hello -- support");
			assertThat(sent(runner, MantleHooks.DEFAULT_AGENT)).isEqualTo("Hello");
			assertThat(sent(runner, "billing")).isEqualTo("Hello");
		}
	}

	private static String sent(HookRunner runner, String agent) {
		OutgoingTextPayload payload = new OutgoingTextPayload("Hello", false, "u1", null, null);
		ModifyResult<OutgoingTextPayload> result = runner.runAndWait(HookPoint.OUTGOING_TEXT, payload,
				HookScope.none().withAgent(agent));
		assertThat(result).isInstanceOf(ModifyResult.Proceed.class);
		return ((ModifyResult.Proceed<OutgoingTextPayload>) result).payload().text();
	}

	private static Generated process(Class<?>... configurations) {
		return process(ClassName.get("com.example", "App"), configurations);
	}

	private static Generated process(ClassName target, Class<?>... configurations) {
		GenericApplicationContext context = new GenericApplicationContext();
		AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
		context.registerBean(HookApplication.class);
		for (Class<?> configuration : configurations) {
			context.registerBean((configuration == StoreConfiguration.class) ? "storeConfiguration" : "hooks",
					configuration);
		}
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generationContext = new DefaultGenerationContext(new ClassNameGenerator(target),
				files);
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		generationContext.writeGeneratedContent();
		return new Generated(generationContext, files);
	}

	private record Generated(DefaultGenerationContext context, InMemoryGeneratedFiles files) {
	}

	@ImportAutoConfiguration({ MantleHooksAutoConfiguration.class })
	static class HookApplication {

	}

	public static class GoodHooks {

		@ModifyIncomingMessage
		public IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().contains("spam")) {
				throw new HookRejection("spam", "utter_no_spam");
			}
			return message;
		}

		@OnModelRequest
		public void audit(ModelRequestPayload request) {
		}

	}

	public static class AgentConflictHooks {

		@ModifyModelRequest
		public ModelRequestPayload cool(ModelRequestPayload request) {
			return request;
		}

		@ModifyModelRequest
		@ForAgent("support")
		public ModelRequestPayload redact(ModelRequestPayload request) {
			return request;
		}

	}

	public static class AgentHooks {

		@ModifyOutgoingText
		@ForAgent("support")
		public OutgoingTextPayload sign(OutgoingTextPayload text) {
			return text.withText(text.text() + " -- support");
		}

	}

	public static class BadHooks {

		@ModifyModelRequest
		public ModelRequestPayload cool(ModelRequestPayload request, Map<String, Object> extra) {
			return request;
		}

	}

	public static class StoreConfiguration {

		@org.springframework.context.annotation.Bean
		static KnowledgeBeanPostProcessor knowledgeBeanPostProcessor(ObjectProvider<HookRunner> hooks) {
			return new KnowledgeBeanPostProcessor(hooks);
		}

		@org.springframework.context.annotation.Bean
		static AotStore store() {
			return new AotStore();
		}

	}

	/**
	 * A store class of this test only: no other test has made its proxy class yet (the
	 * AOT build only captures classes it generates itself).
	 */
	public static class AotStore extends SimpleVectorStore {

		AotStore() {
			super(SimpleVectorStore.builder(new KeywordEmbeddingModel()));
		}

	}

}
