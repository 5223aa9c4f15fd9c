package io.mantlehooks.runtime.discovery;

import java.io.StringReader;
import java.lang.reflect.Method;
import java.util.Properties;
import java.util.Set;

import io.mantlehooks.HookRejection;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.RetryModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bytecode check where class files cannot be read (a native image): what the AOT
 * build recorded decides, and a method nobody could check is reported, not skipped
 * silently.
 */
@ExtendWith(OutputCaptureExtension.class)
class RecordedChecksTests {

	@Test
	void theCheckReadsTheClassFileWhenNothingWasRecorded() throws Exception {
		SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks());
		Method screen = Hooks.class.getDeclaredMethod("screen", IncomingMessagePayload.class);
		assertThat(inspector.constructedSignals(screen)).containsExactly(HookRejection.class);
		assertThat(inspector.rejectionResponseNames(screen)).containsExactly("utter_no_spam");
	}

	@Test
	void recordedResultsWinAndSurviveTheirWrittenForm() throws Exception {
		Method screen = Hooks.class.getDeclaredMethod("screen", IncomingMessagePayload.class);
		RecordedChecks written = new RecordedChecks();
		written.record(screen, Set.of(RetryModel.class), Set.of("utter_recorded"));
		Properties properties = new Properties();
		properties.load(new StringReader(written.write()));
		RecordedChecks read = new RecordedChecks();
		read.read(properties);
		SignalUsageInspector inspector = new SignalUsageInspector(read);
		assertThat(inspector.constructedSignals(screen)).containsExactly(RetryModel.class);
		assertThat(inspector.rejectionResponseNames(screen)).containsExactly("utter_recorded");
	}

	@Test
	void aMethodNobodyCouldCheckIsReportedOnce(CapturedOutput output) throws Exception {
		Runnable lambda = () -> {
		};
		Method run = lambda.getClass().getDeclaredMethod("run");
		SignalUsageInspector inspector = new SignalUsageInspector(new RecordedChecks());
		assertThat(inspector.constructedSignals(run)).isEmpty();
		assertThat(inspector.rejectionResponseNames(run)).isEmpty();
		assertThat(output).containsOnlyOnce("Cannot read the class file of " + lambda.getClass().getName())
			.contains("control signals its hooks construct are not checked at startup");
	}

	static class Hooks {

		IncomingMessagePayload screen(IncomingMessagePayload message) {
			if (message.text().isEmpty()) {
				throw new HookRejection("empty", "utter_no_spam");
			}
			return message;
		}

	}

}
