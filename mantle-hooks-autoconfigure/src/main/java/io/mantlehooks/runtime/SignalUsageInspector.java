package io.mantlehooks.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.mantlehooks.HookRejection;
import io.mantlehooks.HookSignal;
import io.mantlehooks.RetryModel;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Finds the control signals a hook method constructs in its own bytecode, including the
 * lambdas it declares (the Java form of the specification's AST check): a method that
 * contains {@code new RetryModel(...)} can throw it, whatever path leads there.
 */
final class SignalUsageInspector {

	private static final Log logger = LogFactory.getLog(SignalUsageInspector.class);

	private static final Map<String, Class<? extends HookSignal>> SIGNALS = Map.of(
			Type.getInternalName(RetryModel.class), RetryModel.class, Type.getInternalName(HookRejection.class),
			HookRejection.class);

	private static final String LAMBDA_PREFIX = "lambda$";

	private final Map<Class<?>, @Nullable ClassCode> classCode = new ConcurrentHashMap<>();

	/**
	 * Return the signal types constructed in the method's body or in lambdas it declares.
	 * @param method the hook method
	 * @return the constructed signal types; empty when none, or when the class file
	 * cannot be read (for example a class generated at run time)
	 */
	Set<Class<? extends HookSignal>> constructedSignals(Method method) {
		ClassCode code = this.classCode.computeIfAbsent(method.getDeclaringClass(), ClassCode::read);
		if (code == null) {
			return Set.of();
		}
		Set<Class<? extends HookSignal>> found = new LinkedHashSet<>();
		Set<String> visited = new HashSet<>();
		Deque<String> pending = new ArrayDeque<>();
		pending.add(method.getName() + Type.getMethodDescriptor(method));
		while (!pending.isEmpty()) {
			String key = pending.poll();
			MethodCode body = code.methods().get(key);
			if (body != null && visited.add(key)) {
				body.constructed().forEach((internalName) -> found.add(SIGNALS.get(internalName)));
				pending.addAll(body.lambdas());
			}
		}
		return found;
	}

	private record MethodCode(Set<String> constructed, Set<String> lambdas) {
	}

	private record ClassCode(Map<String, MethodCode> methods) {

		static @Nullable ClassCode read(Class<?> type) {
			String resource = type.getName().replace('.', '/') + ".class";
			ClassLoader classLoader = (type.getClassLoader() != null) ? type.getClassLoader()
					: ClassLoader.getSystemClassLoader();
			try (InputStream in = classLoader.getResourceAsStream(resource)) {
				if (in == null) {
					logger.debug("No class file for " + type.getName() + "; skipping the signal bytecode check");
					return null;
				}
				Map<String, MethodCode> methods = new ConcurrentHashMap<>();
				new ClassReader(in).accept(new MethodCollector(Type.getInternalName(type), methods),
						ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
				return new ClassCode(methods);
			}
			catch (IOException | RuntimeException ex) {
				logger.debug(
						"Could not read the class file of " + type.getName() + "; skipping the signal bytecode check",
						ex);
				return null;
			}
		}

	}

	private static final class MethodCollector extends ClassVisitor {

		private final String owner;

		private final Map<String, MethodCode> methods;

		MethodCollector(String owner, Map<String, MethodCode> methods) {
			super(SpringAsmInfo.ASM_VERSION);
			this.owner = owner;
			this.methods = methods;
		}

		@Override
		public MethodVisitor visitMethod(int access, String name, String descriptor, @Nullable String signature,
				String @Nullable [] exceptions) {
			MethodCode code = new MethodCode(new LinkedHashSet<>(), new LinkedHashSet<>());
			this.methods.put(name + descriptor, code);
			return new MethodVisitor(SpringAsmInfo.ASM_VERSION) {

				@Override
				public void visitTypeInsn(int opcode, String type) {
					if (opcode == Opcodes.NEW && SIGNALS.containsKey(type)) {
						code.constructed().add(type);
					}
				}

				@Override
				public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
						Object... bootstrapMethodArguments) {
					for (Object argument : bootstrapMethodArguments) {
						if (argument instanceof Handle handle && handle.getOwner().equals(MethodCollector.this.owner)
								&& handle.getName().startsWith(LAMBDA_PREFIX)) {
							code.lambdas().add(handle.getName() + handle.getDesc());
						}
					}
				}

			};
		}

	}

}
