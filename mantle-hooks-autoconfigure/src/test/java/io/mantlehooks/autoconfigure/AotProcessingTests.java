package io.mantlehooks.autoconfigure;

import java.io.IOException;
import java.util.Map;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ai.KeywordEmbeddingModel;
import io.mantlehooks.ai.knowledge.KnowledgeBeanPostProcessor;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.runtime.HookDefinitionException;
import io.mantlehooks.runtime.HookRunner;
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
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
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

	private static Generated process(Class<?>... configurations) {
		GenericApplicationContext context = new GenericApplicationContext();
		AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
		context.registerBean(HookApplication.class);
		for (Class<?> configuration : configurations) {
			context.registerBean((configuration == StoreConfiguration.class) ? "storeConfiguration" : "hooks",
					configuration);
		}
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "App")), files);
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
