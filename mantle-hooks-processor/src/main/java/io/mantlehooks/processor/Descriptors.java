package io.mantlehooks.processor;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * JVM method descriptors from javac's model, as the runtime builds them from a
 * {@code Method} (erased parameter and return types, binary class names).
 */
final class Descriptors {

	private Descriptors() {
	}

	/**
	 * Return the descriptor, or {@code null} when a type is erroneous.
	 */
	static String of(ExecutableElement method, Types types, Elements elements) {
		StringBuilder descriptor = new StringBuilder("(");
		for (VariableElement parameter : method.getParameters()) {
			if (!append(descriptor, types.erasure(parameter.asType()), types, elements)) {
				return null;
			}
		}
		descriptor.append(')');
		return append(descriptor, types.erasure(method.getReturnType()), types, elements) ? descriptor.toString()
				: null;
	}

	private static boolean append(StringBuilder descriptor, TypeMirror type, Types types, Elements elements) {
		switch (type.getKind()) {
			case BOOLEAN -> descriptor.append('Z');
			case BYTE -> descriptor.append('B');
			case CHAR -> descriptor.append('C');
			case SHORT -> descriptor.append('S');
			case INT -> descriptor.append('I');
			case LONG -> descriptor.append('J');
			case FLOAT -> descriptor.append('F');
			case DOUBLE -> descriptor.append('D');
			case VOID -> descriptor.append('V');
			case ARRAY -> {
				descriptor.append('[');
				return append(descriptor, types.erasure(((ArrayType) type).getComponentType()), types, elements);
			}
			case DECLARED -> {
				TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
				descriptor.append('L').append(elements.getBinaryName(element).toString().replace('.', '/')).append(';');
			}
			default -> {
				return false;
			}
		}
		return true;
	}

}
