package io.mantlehooks.processor;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;

/**
 * Walks one method body as the runtime's bytecode check reads the method's code: a
 * {@code new RetryModel(..)} or {@code new HookRejection(..)} counts, also inside the
 * lambdas the method declares (their bodies are methods of the same class file), but not
 * inside anonymous or local classes (separate class files the bytecode check does not
 * follow), nor an anonymous subclass of a signal or a constructor reference (neither is a
 * {@code new} of the signal type in the method's code). The response name of
 * {@code new HookRejection(reason, name)} counts when {@code name} is a compile-time
 * constant (javac then loads it with one {@code ldc}, which the bytecode check reads).
 */
final class MethodScanner extends TreePathScanner<Void, Void> {

	static final String RETRY_MODEL = "io.mantlehooks.RetryModel";

	static final String HOOK_REJECTION = "io.mantlehooks.HookRejection";

	private static final Set<String> SIGNALS = Set.of(RETRY_MODEL, HOOK_REJECTION);

	private static final Object NOT_CONSTANT = new Object();

	private final Trees trees;

	private final Set<String> signals = new TreeSet<>();

	private final Set<String> rejectionNames = new LinkedHashSet<>();

	private boolean undecided;

	MethodScanner(Trees trees) {
		this.trees = trees;
	}

	/**
	 * Walk a method.
	 * @return what it constructs, or {@code null} when the walk met an expression whose
	 * value it cannot decide the way the bytecode check would
	 */
	Found scanMethod(TreePath methodPath) {
		scan(methodPath, null);
		return this.undecided ? null : new Found(this.signals, this.rejectionNames);
	}

	@Override
	public Void visitClass(ClassTree node, Void unused) {
		// a local, anonymous or record class is its own class file
		return null;
	}

	@Override
	public Void visitNewClass(NewClassTree node, Void unused) {
		scan(node.getEnclosingExpression(), null);
		scan(node.getArguments(), null);
		if (node.getClassBody() != null) {
			// a class file of its own; this code constructs the subclass, no signal
			return null;
		}
		Element constructor = this.trees.getElement(getCurrentPath());
		if (constructor instanceof ExecutableElement executable
				&& executable.getEnclosingElement() instanceof TypeElement owner) {
			String name = owner.getQualifiedName().toString();
			if (SIGNALS.contains(name)) {
				this.signals.add(name);
			}
			if (name.equals(HOOK_REJECTION) && isStringString(executable)) {
				Object value = constant(new TreePath(getCurrentPath(), node.getArguments().get(1)));
				if (value instanceof String text) {
					this.rejectionNames.add(text);
				}
			}
		}
		return null;
	}

	private static boolean isStringString(ExecutableElement constructor) {
		List<? extends VariableElement> parameters = constructor.getParameters();
		// by the type's element: the type's text carries type-use annotations such as
		// JSpecify's @Nullable, which javac 22+ reads from class files
		return parameters.size() == 2 && parameters.stream().allMatch((parameter) -> isString(parameter.asType()));
	}

	private static boolean isString(TypeMirror type) {
		return type instanceof DeclaredType declared && declared.asElement() instanceof TypeElement element
				&& element.getQualifiedName().contentEquals("java.lang.String");
	}

	/**
	 * The value of a compile-time constant expression, {@link #NOT_CONSTANT}, or
	 * {@code null} for the {@code null} literal; marks the walk undecided for forms it
	 * does not evaluate.
	 */
	private Object constant(TreePath path) {
		Tree tree = path.getLeaf();
		if (tree instanceof LiteralTree literal) {
			Object value = literal.getValue();
			return (value != null) ? value : NOT_CONSTANT;
		}
		if (tree instanceof ParenthesizedTree parenthesized) {
			return constant(new TreePath(path, parenthesized.getExpression()));
		}
		switch (tree.getKind()) {
			case IDENTIFIER, MEMBER_SELECT -> {
				Element element = this.trees.getElement(path);
				Object value = (element instanceof VariableElement variable) ? variable.getConstantValue() : null;
				return (value != null) ? value : NOT_CONSTANT;
			}
			case METHOD_INVOCATION, NEW_CLASS, NEW_ARRAY, ARRAY_ACCESS, LAMBDA_EXPRESSION, MEMBER_REFERENCE, ASSIGNMENT,
					PREFIX_INCREMENT, POSTFIX_INCREMENT, PREFIX_DECREMENT, POSTFIX_DECREMENT -> {
				return NOT_CONSTANT;
			}
			case PLUS -> {
				BinaryTree binary = (BinaryTree) tree;
				Object left = constant(new TreePath(path, binary.getLeftOperand()));
				Object right = constant(new TreePath(path, binary.getRightOperand()));
				if (left == NOT_CONSTANT || right == NOT_CONSTANT) {
					return NOT_CONSTANT;
				}
				if (left instanceof String || right instanceof String) {
					return String.valueOf(left) + right;
				}
				this.undecided = true;
				return NOT_CONSTANT;
			}
			default -> {
				// a conditional, a cast, arithmetic, a switch expression: javac may fold
				// them into a constant; leave the class to the runtime
				this.undecided = true;
				return NOT_CONSTANT;
			}
		}
	}

	/**
	 * What a method constructs.
	 *
	 * @param signals the qualified names of the signal types it constructs
	 * @param rejectionNames the constant response names it rejects with
	 */
	record Found(Set<String> signals, Set<String> rejectionNames) {
	}

}
