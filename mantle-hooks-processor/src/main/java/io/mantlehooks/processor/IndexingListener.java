package io.mantlehooks.processor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TaskEvent;
import com.sun.source.util.TaskListener;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;

/**
 * Follows one javac compilation: walks the method bodies of each class with hook methods
 * once javac analysed it, notes which class files javac wrote, and writes the index when
 * compilation finishes (only then are all class files there to checksum).
 */
final class IndexingListener implements TaskListener {

	/** The hook annotations, by name: the processor has no dependency on the starter. */
	static final Set<String> HOOK_ANNOTATIONS = Set
		.of("ModifyIncomingMessage", "ModifyKnowledgeQuery", "ModifyKnowledgeResults", "ModifyModelRequest",
				"ModifyModelResponse", "ModifyOutgoingText", "ModifyToolCall", "ModifyToolResult", "OnIncomingMessage",
				"OnKnowledgeQuery", "OnKnowledgeResults", "OnModelRequest", "OnModelResponse", "OnOutgoingText",
				"OnToolCall", "OnToolResult", "OnTurnFinished", "OnTurnStarted")
		.stream()
		.map((name) -> "io.mantlehooks.annotation." + name)
		.collect(Collectors.toUnmodifiableSet());

	private final Trees trees;

	private final Elements elements;

	private final ProcessingEnvironment processingEnv;

	private final Map<String, SourceIndex.ClassChecks> analysed = new LinkedHashMap<>();

	private final Set<String> generated = new HashSet<>();

	private final Map<String, Boolean> hookAnnotations = new LinkedHashMap<>();

	private Path indexFile;

	IndexingListener(ProcessingEnvironment processingEnv) {
		this.trees = Trees.instance(processingEnv);
		this.elements = processingEnv.getElementUtils();
		this.processingEnv = processingEnv;
	}

	void writeTo(Path indexFile) {
		this.indexFile = indexFile;
	}

	@Override
	public void finished(TaskEvent event) {
		if (this.indexFile == null) {
			return;
		}
		if (event.getKind() == TaskEvent.Kind.ANALYZE && event.getTypeElement() != null) {
			TreePath path = this.trees.getPath(event.getTypeElement());
			if (path != null) {
				analyse(path);
			}
		}
		else if (event.getKind() == TaskEvent.Kind.GENERATE && event.getTypeElement() != null) {
			this.generated.add(this.elements.getBinaryName(event.getTypeElement()).toString());
		}
		else if (event.getKind() == TaskEvent.Kind.COMPILATION) {
			write();
		}
	}

	/**
	 * Walk a top-level or member class and its member classes (local and anonymous
	 * classes are not indexed: the runtime reads their class files).
	 */
	private void analyse(TreePath classPath) {
		ClassTree tree = (ClassTree) classPath.getLeaf();
		Element element = this.trees.getElement(classPath);
		if (!(element instanceof TypeElement type)
				|| (type.getNestingKind() != NestingKind.TOP_LEVEL && type.getNestingKind() != NestingKind.MEMBER)) {
			return;
		}
		if (hasHookMethod(type)) {
			index(type, classPath);
		}
		for (Tree member : tree.getMembers()) {
			if (member instanceof ClassTree) {
				analyse(new TreePath(classPath, member));
			}
		}
	}

	private void index(TypeElement type, TreePath classPath) {
		String binaryName = this.elements.getBinaryName(type).toString();
		Map<String, MethodScanner.Found> methods = new LinkedHashMap<>();
		for (Tree member : ((ClassTree) classPath.getLeaf()).getMembers()) {
			if (!(member instanceof MethodTree)) {
				continue;
			}
			TreePath methodPath = new TreePath(classPath, member);
			if (!(this.trees.getElement(methodPath) instanceof ExecutableElement method)
					|| method.getKind() != ElementKind.METHOD) {
				continue;
			}
			String descriptor = Descriptors.of(method, this.processingEnv.getTypeUtils(), this.elements);
			MethodScanner scanner = new MethodScanner(this.trees);
			MethodScanner.Found found = (descriptor != null) ? scanner.scanMethod(methodPath) : null;
			if (found == null) {
				// something the walk cannot decide as the bytecode check would: leave the
				// whole class to the runtime
				return;
			}
			methods.put(method.getSimpleName() + descriptor, found);
		}
		this.analysed.put(binaryName, new SourceIndex.ClassChecks(methods));
	}

	private boolean hasHookMethod(TypeElement type) {
		for (Element enclosed : type.getEnclosedElements()) {
			if (enclosed.getKind() == ElementKind.METHOD && isHook(enclosed.getAnnotationMirrors(), new HashSet<>())) {
				return true;
			}
		}
		return false;
	}

	private boolean isHook(List<? extends AnnotationMirror> annotations, Set<String> visited) {
		for (AnnotationMirror annotation : annotations) {
			TypeElement annotationType = (TypeElement) annotation.getAnnotationType().asElement();
			String name = annotationType.getQualifiedName().toString();
			if (HOOK_ANNOTATIONS.contains(name)) {
				return true;
			}
			if (visited.add(name) && !name.startsWith("java.lang.")) {
				Boolean known = this.hookAnnotations.get(name);
				if (known == null) {
					known = isHook(annotationType.getAnnotationMirrors(), visited);
					this.hookAnnotations.put(name, known);
				}
				if (known) {
					return true;
				}
			}
		}
		return false;
	}

	private void write() {
		Path classOutput = this.indexFile;
		for (int i = 0; i < Path.of(SourceIndex.LOCATION).getNameCount(); i++) {
			classOutput = classOutput.getParent();
		}
		try {
			SourceIndex.merge(this.indexFile, classOutput, this.analysed, this.generated);
		}
		catch (IOException | RuntimeException ex) {
			this.processingEnv.getMessager()
				.printMessage(Diagnostic.Kind.WARNING, "mantle-hooks-processor: could not write " + this.indexFile
						+ ": " + ex + " (hook classes are checked from their class files at startup)");
		}
	}

}
