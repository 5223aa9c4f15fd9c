package io.mantlehooks.processor;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Set;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

import com.sun.source.util.JavacTask;

/**
 * Writes {@value SourceIndex#LOCATION} into the class output: for every class with a hook
 * method (one of the hook annotations of {@code io.mantlehooks.annotation}, directly or
 * as a meta-annotation), one line: the size, CRC32 and modification time of the class
 * file javac wrote, so the runtime trusts the line only for exactly that class file, and
 * each method that constructs a control signal, with the signals and the literal response
 * names it rejects with, found by walking the method bodies after javac analysed them (a
 * method not listed constructs none; see {@link SourceIndex} for the format).
 * <p>
 * Only javac exposes method bodies to processors ({@code com.sun.source}); on another
 * compiler the processor prints a note and writes nothing, and the runtime reads the
 * class files as without it. It claims no annotations, so it never hides them from other
 * processors.
 */
public class SignalIndexProcessor extends AbstractProcessor {

	private IndexingListener listener;

	private boolean located;

	@Override
	public synchronized void init(ProcessingEnvironment processingEnv) {
		super.init(processingEnv);
		JavacTask task;
		try {
			task = JavacTask.instance(processingEnv);
		}
		catch (IllegalArgumentException | LinkageError ex) {
			note("mantle-hooks-processor: this compiler is not javac, so no hook signal index is written; "
					+ "hook classes are checked from their class files at startup");
			return;
		}
		this.listener = new IndexingListener(processingEnv);
		task.addTaskListener(this.listener);
	}

	@Override
	public Set<String> getSupportedAnnotationTypes() {
		// meta-annotated (composed) hook annotations can have any name
		return Set.of("*");
	}

	@Override
	public SourceVersion getSupportedSourceVersion() {
		return SourceVersion.latestSupported();
	}

	@Override
	public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment roundEnv) {
		if (this.listener != null && !this.located) {
			this.located = true;
			try {
				// the file is written when compilation finishes, after javac wrote the
				// class files whose checksums it holds; the Filer only says where
				FileObject index = this.processingEnv.getFiler()
					.createResource(StandardLocation.CLASS_OUTPUT, "", SourceIndex.LOCATION);
				URI uri = index.toUri();
				if ("file".equals(uri.getScheme())) {
					this.listener.writeTo(Path.of(uri));
				}
				else {
					note("mantle-hooks-processor: the class output is not a directory (" + uri
							+ "), so no hook signal index is written");
				}
			}
			catch (IOException | RuntimeException ex) {
				note("mantle-hooks-processor: cannot write " + SourceIndex.LOCATION + " (" + ex
						+ "), so no hook signal index is written");
			}
		}
		return false;
	}

	private void note(String message) {
		this.processingEnv.getMessager().printMessage(Diagnostic.Kind.NOTE, message);
	}

}
