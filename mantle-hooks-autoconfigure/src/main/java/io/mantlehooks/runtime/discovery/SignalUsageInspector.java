package io.mantlehooks.runtime.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
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
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

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

	private static final String REJECTION = Type.getInternalName(HookRejection.class);

	private static final String REJECTION_WITH_RESPONSE = "(Ljava/lang/String;Ljava/lang/String;)V";

	private final Map<Class<?>, @Nullable ClassCode> classCode = new ConcurrentHashMap<>();

	private final RecordedChecks recorded;

	private final SourceChecks indexed;

	private final Set<Class<?>> unchecked = ConcurrentHashMap.newKeySet();

	SignalUsageInspector() {
		this(RecordedChecks.load(ClassUtils.getDefaultClassLoader()),
				SourceChecks.load(ClassUtils.getDefaultClassLoader()));
	}

	/**
	 * Create an inspector that trusts the given records (made by the AOT build) for the
	 * methods they cover, and reads class files for the others.
	 */
	SignalUsageInspector(RecordedChecks recorded) {
		this(recorded, SourceChecks.none());
	}

	/**
	 * Create an inspector that trusts the AOT build's records, then the compile-time
	 * index for the unchanged classes it covers, and reads class files for the others.
	 */
	SignalUsageInspector(RecordedChecks recorded, SourceChecks indexed) {
		this.recorded = recorded;
		this.indexed = indexed;
	}

	/**
	 * Return the signal types constructed in the method's body or in lambdas it declares.
	 * @param method the hook method
	 * @return the constructed signal types; empty when none, or when the class file
	 * cannot be read (for example a class generated at run time)
	 */
	Set<Class<? extends HookSignal>> constructedSignals(Method method) {
		RecordedChecks.Checked checked = recorded(method);
		if (checked != null) {
			return checked.signals();
		}
		Set<Class<? extends HookSignal>> found = new LinkedHashSet<>();
		reachableCode(method)
			.forEach((body) -> body.constructed().forEach((internalName) -> found.add(SIGNALS.get(internalName))));
		return found;
	}

	/**
	 * Return the response names the method (or a lambda it declares) passes as string
	 * constants to {@code new HookRejection(reason, responseMessage)}.
	 * @param method the hook method
	 * @return the constant response names, empty when none can be read
	 */
	Set<String> rejectionResponseNames(Method method) {
		RecordedChecks.Checked checked = recorded(method);
		if (checked != null) {
			return checked.rejectionNames();
		}
		Set<String> names = new LinkedHashSet<>();
		reachableCode(method).forEach((body) -> names.addAll(body.rejectionNames()));
		return names;
	}

	private RecordedChecks.@Nullable Checked recorded(Method method) {
		RecordedChecks.Checked checked = this.recorded.find(method);
		return (checked != null) ? checked : this.indexed.find(method);
	}

	private List<MethodCode> reachableCode(Method method) {
		ClassCode code = this.classCode.computeIfAbsent(method.getDeclaringClass(), ClassCode::read);
		if (code == null) {
			if (this.unchecked.add(method.getDeclaringClass())) {
				logger.warn("Cannot read the class file of " + method.getDeclaringClass().getName()
						+ " and the build recorded no bytecode check for it (" + RecordedChecks.LOCATION
						+ "): control signals its hooks construct are not checked at startup. In a native image, "
						+ "build with Spring AOT (spring-boot:process-aot), which records the check.");
			}
			return List.of();
		}
		if (code.methods().isEmpty()) {
			return List.of();
		}
		List<MethodCode> reachable = new ArrayList<>();
		Set<String> visited = new HashSet<>();
		Deque<String> pending = new ArrayDeque<>();
		pending.add(method.getName() + Type.getMethodDescriptor(method));
		while (!pending.isEmpty()) {
			String key = pending.poll();
			MethodCode body = code.methods().get(key);
			if (body != null && visited.add(key)) {
				reachable.add(body);
				pending.addAll(body.lambdas());
			}
		}
		return reachable;
	}

	/**
	 * Forget the class files read so far: the check runs once, at startup.
	 */
	void clear() {
		if (logger.isDebugEnabled() && (this.indexed.coveredClasses() > 0 || !this.classCode.isEmpty())) {
			logger.debug("Hook signal check: " + this.indexed.coveredClasses()
					+ " hook classes from the compile-time index (" + SourceChecks.LOCATION + "), "
					+ this.classCode.size() + " class files read");
		}
		this.classCode.clear();
		this.unchecked.clear();
		this.indexed.clear();
	}

	private record MethodCode(Set<String> constructed, Set<String> lambdas, Set<String> rejectionNames) {
	}

	private record ClassCode(Map<String, MethodCode> methods) {

		private static final ClassCode NO_SIGNALS = new ClassCode(Map.of());

		static @Nullable ClassCode read(Class<?> type) {
			String resource = type.getName().replace('.', '/') + ".class";
			ClassLoader classLoader = (type.getClassLoader() != null) ? type.getClassLoader()
					: ClassLoader.getSystemClassLoader();
			try (InputStream in = classLoader.getResourceAsStream(resource)) {
				if (in == null) {
					logger.debug("No class file for " + type.getName() + "; skipping the signal bytecode check");
					return null;
				}
				byte[] bytes = in.readAllBytes();
				// a class that never names a signal type constructs none: most hook
				// classes, read without parsing their code
				if (!SignalReferences.present(bytes)) {
					return NO_SIGNALS;
				}
				Map<String, MethodCode> methods = new ConcurrentHashMap<>();
				new ClassReader(bytes).accept(new MethodCollector(Type.getInternalName(type), methods),
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

	/**
	 * Finds the internal names of the signal types among a class file's bytes (its
	 * constant pool holds the name of every class it instantiates).
	 */
	private static final class SignalReferences {

		private static final byte[][] NAMES = SIGNALS.keySet()
			.stream()
			.map((name) -> name.getBytes(StandardCharsets.UTF_8))
			.toArray(byte[][]::new);

		static boolean present(byte[] classFile) {
			for (byte[] name : NAMES) {
				if (indexOf(classFile, name) >= 0) {
					return true;
				}
			}
			return false;
		}

		private static int indexOf(byte[] haystack, byte[] needle) {
			byte first = needle[0];
			int last = haystack.length - needle.length;
			for (int i = 0; i <= last; i++) {
				if (haystack[i] == first && matches(haystack, i, needle)) {
					return i;
				}
			}
			return -1;
		}

		private static boolean matches(byte[] haystack, int offset, byte[] needle) {
			for (int j = 1; j < needle.length; j++) {
				if (haystack[offset + j] != needle[j]) {
					return false;
				}
			}
			return true;
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
			MethodCode code = new MethodCode(new LinkedHashSet<>(), new LinkedHashSet<>(), new LinkedHashSet<>());
			this.methods.put(name + descriptor, code);
			return new CodeCollector(this.owner, code);
		}

	}

	/**
	 * Collects what one method's code constructs, the lambdas it declares, and the string
	 * constant pushed right before each {@code HookRejection(String, String)} constructor
	 * call (the response name, when it is a literal).
	 */
	private static final class CodeCollector extends MethodVisitor {

		private final String owner;

		private final MethodCode code;

		private @Nullable String lastConstant;

		CodeCollector(String owner, MethodCode code) {
			super(SpringAsmInfo.ASM_VERSION);
			this.owner = owner;
			this.code = code;
		}

		@Override
		public void visitLdcInsn(Object value) {
			this.lastConstant = (value instanceof String text) ? text : null;
		}

		@Override
		public void visitTypeInsn(int opcode, String type) {
			this.lastConstant = null;
			if (opcode == Opcodes.NEW && SIGNALS.containsKey(type)) {
				this.code.constructed().add(type);
			}
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			if (opcode == Opcodes.INVOKESPECIAL && owner.equals(REJECTION) && name.equals("<init>")
					&& descriptor.equals(REJECTION_WITH_RESPONSE) && this.lastConstant != null) {
				this.code.rejectionNames().add(this.lastConstant);
			}
			this.lastConstant = null;
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
				Object... bootstrapMethodArguments) {
			this.lastConstant = null;
			for (Object argument : bootstrapMethodArguments) {
				if (argument instanceof Handle handle && handle.getOwner().equals(this.owner)
						&& handle.getName().startsWith(LAMBDA_PREFIX)) {
					this.code.lambdas().add(handle.getName() + handle.getDesc());
				}
			}
		}

		@Override
		public void visitInsn(int opcode) {
			this.lastConstant = null;
		}

		@Override
		public void visitIntInsn(int opcode, int operand) {
			this.lastConstant = null;
		}

		@Override
		public void visitVarInsn(int opcode, int varIndex) {
			this.lastConstant = null;
		}

		@Override
		public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
			this.lastConstant = null;
		}

		@Override
		public void visitJumpInsn(int opcode, Label label) {
			this.lastConstant = null;
		}

		@Override
		public void visitLabel(Label label) {
			this.lastConstant = null;
		}

		@Override
		public void visitIincInsn(int varIndex, int increment) {
			this.lastConstant = null;
		}

		@Override
		public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
			this.lastConstant = null;
		}

		@Override
		public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
			this.lastConstant = null;
		}

		@Override
		public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
			this.lastConstant = null;
		}

	}

}
