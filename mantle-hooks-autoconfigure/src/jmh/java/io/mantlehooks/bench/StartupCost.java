package io.mantlehooks.bench;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.annotation.OnModelRequest;
import io.mantlehooks.autoconfigure.MantleHooksAutoConfiguration;
import io.mantlehooks.runtime.HookRegistry;

import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What 1,000 beans with an observe hook each add to an application's startup: the
 * context refresh with 1,000 such beans against the same refresh with 1,000 beans of the
 * same shape without the annotation. Every round generates fresh classes in a fresh class
 * loader, so no cache of an earlier round helps. Prints the medians and their difference.
 * <p>
 * {@code mvn -B -ntp -Pbenchmarks -pl mantle-hooks-autoconfigure verify
 * -Dbench.main=io.mantlehooks.bench.StartupCost -Dbench.args="1000 15"}
 */
public final class StartupCost {

	private static final String HOOK_ANNOTATION = Type.getDescriptor(OnModelRequest.class);

	private static final String PAYLOAD = Type.getDescriptor(ModelRequestPayload.class);

	private StartupCost() {
	}

	public static void main(String[] args) {
		int beans = (args.length > 0) ? Integer.parseInt(args[0]) : 1_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 15;
		// warm the JIT and the framework's own classes
		for (int i = 0; i < 3; i++) {
			refresh(beans, false, i);
			refresh(beans, true, i);
		}
		double[] plain = new double[rounds];
		double[] hooked = new double[rounds];
		for (int i = 0; i < rounds; i++) {
			plain[i] = refresh(beans, false, 100 + i);
			hooked[i] = refresh(beans, true, 100 + i);
		}
		Arrays.sort(plain);
		Arrays.sort(hooked);
		double plainMs = plain[rounds / 2];
		double hookedMs = hooked[rounds / 2];
		System.out.printf("java %s, %d beans: plain refresh %.1f ms, with an observe hook each %.1f ms, added %.1f ms%n",
				System.getProperty("java.version"), beans, plainMs, hookedMs, hookedMs - plainMs);
	}

	private static double refresh(int beans, boolean hooks, int round) {
		GeneratedClasses classes = new GeneratedClasses(StartupCost.class.getClassLoader(), beans, hooks, round);
		long start = System.nanoTime();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.setClassLoader(classes);
			context.register(HookApplication.class);
			for (int i = 0; i < beans; i++) {
				context.registerBeanDefinition("bean" + i, new RootBeanDefinition(classes.load(i)));
			}
			context.refresh();
			int found = context.getBean(HookRegistry.class).everyAgent().observers(HookPoint.MODEL_REQUEST).size();
			if (found != (hooks ? beans : 0)) {
				throw new IllegalStateException("Found " + found + " hooks");
			}
			return (System.nanoTime() - start) / 1e6;
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(MantleHooksAutoConfiguration.class)
	static class HookApplication {

	}

	/**
	 * Defines bean classes with a no-arg constructor, three plain methods and one
	 * {@code observe(ModelRequestPayload)} method, annotated or not; serves their class
	 * files as resources, as a jar would.
	 */
	static final class GeneratedClasses extends ClassLoader {

		private final Map<String, byte[]> bytes = new HashMap<>();

		private final String[] names;

		GeneratedClasses(ClassLoader parent, int count, boolean hooks, int round) {
			super(parent);
			this.names = new String[count];
			for (int i = 0; i < count; i++) {
				String name = "io.mantlehooks.bench.generated.Round" + round + (hooks ? "Hook" : "Plain") + "Bean" + i;
				this.names[i] = name;
				this.bytes.put(name, generate(name.replace('.', '/'), hooks));
			}
		}

		Class<?> load(int index) {
			try {
				return loadClass(this.names[index]);
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		protected Class<?> findClass(String name) throws ClassNotFoundException {
			byte[] code = this.bytes.get(name);
			if (code == null) {
				throw new ClassNotFoundException(name);
			}
			return defineClass(name, code, 0, code.length);
		}

		@Override
		public InputStream getResourceAsStream(String name) {
			if (name.endsWith(".class")) {
				byte[] code = this.bytes.get(name.substring(0, name.length() - 6).replace('/', '.'));
				if (code != null) {
					return new ByteArrayInputStream(code);
				}
			}
			return super.getResourceAsStream(name);
		}

		private static byte[] generate(String internalName, boolean hooks) {
			ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
			writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, internalName, null, "java/lang/Object",
					null);
			MethodVisitor constructor = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
			constructor.visitCode();
			constructor.visitVarInsn(Opcodes.ALOAD, 0);
			constructor.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
			constructor.visitInsn(Opcodes.RETURN);
			constructor.visitMaxs(0, 0);
			constructor.visitEnd();
			for (String plain : new String[] { "first", "second", "third" }) {
				MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC, plain, "()Ljava/lang/String;", null,
						null);
				method.visitCode();
				method.visitLdcInsn(plain);
				method.visitInsn(Opcodes.ARETURN);
				method.visitMaxs(0, 0);
				method.visitEnd();
			}
			MethodVisitor observe = writer.visitMethod(Opcodes.ACC_PUBLIC, "observe", "(" + PAYLOAD + ")V", null,
					null);
			if (hooks) {
				observe.visitAnnotation(HOOK_ANNOTATION, true).visitEnd();
			}
			observe.visitCode();
			observe.visitInsn(Opcodes.RETURN);
			observe.visitMaxs(0, 0);
			observe.visitEnd();
			writer.visitEnd();
			return writer.toByteArray();
		}

	}

}
