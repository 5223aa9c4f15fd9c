package io.mantlehooks.test;

import java.util.Objects;
import java.util.function.Consumer;

import io.mantlehooks.HookFailure;
import io.mantlehooks.HookOutcome;
import io.mantlehooks.HookPayload;
import io.mantlehooks.ToolCallPayload;
import org.assertj.core.api.AbstractAssert;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ assertions for what {@link HookTester#run} returns. They need
 * {@code org.assertj:assertj-core} on the test class path, as Spring Boot's test starter
 * has it:
 *
 * <pre class="code">
 * assertThat(hooks.run(TestPayloads.incomingMessage("Buy crypto!").build()))
 *     .isRejectedWith("sales pitch", "utter_spam_rejected");
 * </pre>
 */
public final class HookAssertions {

	private HookAssertions() {
	}

	/**
	 * Start asserting on a hook result.
	 * @param <P> the payload type
	 * @param actual the result
	 * @return the assertion
	 */
	public static <P extends HookPayload> HookResultAssert<P> assertThat(HookResult<P> actual) {
		return new HookResultAssert<>(actual);
	}

	/**
	 * Assertions on a {@link HookResult}.
	 *
	 * @param <P> the payload type
	 */
	public static final class HookResultAssert<P extends HookPayload>
			extends AbstractAssert<HookResultAssert<P>, HookResult<P>> {

		HookResultAssert(HookResult<P> actual) {
			super(actual, HookResultAssert.class);
		}

		/**
		 * The turn goes on with a payload that meets the requirements.
		 * @param requirements assertions on the payload
		 * @return this assertion
		 */
		public HookResultAssert<P> proceededWith(Consumer<? super P> requirements) {
			isNotNull();
			if (!this.actual.proceeded()) {
				failWithMessage("Expected the hook to proceed, but: %s", this.actual);
			}
			requirements.accept(this.actual.payload());
			return this;
		}

		/**
		 * The turn goes on with the payload as it came in.
		 * @return this assertion
		 */
		public HookResultAssert<P> proceededUnchanged() {
			isNotNull();
			if (!this.actual.unchanged()) {
				failWithMessage("Expected the hook to proceed unchanged, but: %s", this.actual);
			}
			return this;
		}

		/**
		 * The hook rejected with this reason and named reply.
		 * @param reason the reason
		 * @param responseName the named reply, {@code null} for none
		 * @return this assertion
		 */
		public HookResultAssert<P> isRejectedWith(String reason, @Nullable String responseName) {
			isNotNull();
			if (!this.actual.rejected() || !this.actual.rejection().reason().equals(reason)
					|| !Objects.equals(this.actual.rejection().responseMessage().orElse(null), responseName)) {
				failWithMessage("Expected the hook to reject with reason <%s> and reply <%s>, but: %s", reason,
						responseName, this.actual);
			}
			return this;
		}

		/**
		 * A tool-call hook refused the call with this message: the tool does not run and
		 * the model reads the message as the call's (error) result. The hook proceeded;
		 * the rest of its batch runs.
		 * @param message the refusal the model reads
		 * @return this assertion
		 */
		public HookResultAssert<P> isRefusedWith(String message) {
			isNotNull();
			if (!this.actual.proceeded() || !(this.actual.payload() instanceof ToolCallPayload call)
					|| !message.equals(call.refusal())) {
				failWithMessage("Expected the hook to refuse the tool call with <%s>, but: %s", message, this.actual);
			}
			return this;
		}

		/**
		 * The hook asked for another model call with this feedback.
		 * @param feedback the feedback
		 * @return this assertion
		 */
		public HookResultAssert<P> isRetriedWith(String feedback) {
			isNotNull();
			if (!this.actual.retried() || !this.actual.retry().feedback().equals(feedback)) {
				failWithMessage("Expected the hook to retry with feedback <%s>, but: %s", feedback, this.actual);
			}
			return this;
		}

		/**
		 * The hook failed this way and the turn goes on with the original payload.
		 * @param kind the failure
		 * @return this assertion
		 */
		public HookResultAssert<P> failedOpenWith(HookFailure.Kind kind) {
			return failed(kind, true);
		}

		/**
		 * The hook failed this way and the point's closed path applies.
		 * @param kind the failure
		 * @return this assertion
		 */
		public HookResultAssert<P> failedClosedWith(HookFailure.Kind kind) {
			return failed(kind, false);
		}

		/**
		 * An observer ended this way.
		 * @param observer {@code beanName.methodName}
		 * @param outcome its outcome
		 * @return this assertion
		 */
		public HookResultAssert<P> hasObserver(String observer, HookOutcome outcome) {
			isNotNull();
			if (this.actual.observers().get(observer) != outcome) {
				failWithMessage("Expected observer <%s> to end <%s>, but: %s", observer, outcome, this.actual);
			}
			return this;
		}

		private HookResultAssert<P> failed(HookFailure.Kind kind, boolean open) {
			isNotNull();
			boolean policy = open ? this.actual.failedOpen() : this.actual.failedClosed();
			if (!policy || this.actual.failure().kind() != kind) {
				failWithMessage("Expected the hook to fail %s with <%s>, but: %s", open ? "open" : "closed", kind,
						this.actual);
			}
			return this;
		}

	}

}
