package io.mantlehooks.runtime;

import java.util.Map;

import io.mantlehooks.Channel;
import io.mantlehooks.OutgoingTextPayload;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a hook returns keeps only what the hook may change: the engine-owned components of
 * the payload it was given come back.
 */
class IdentityWallTests {

	@Test
	void anOutgoingTextHookCannotMoveOrEndTheSegmentItRewrites() {
		OutgoingTextPayload given = new OutgoingTextPayload("Pay 30 EUR. ", false, "user-1", Map.of("k", "v"),
				Channel.of("web"), 2, false);
		OutgoingTextPayload returned = new OutgoingTextPayload("Pay €30.00. ", true, "someone-else", Map.of(),
				Channel.of("evil"), 0, true);
		OutgoingTextPayload restored = IdentityWall.restore(returned, given);
		assertThat(restored).isEqualTo(new OutgoingTextPayload("Pay €30.00. ", false, "user-1", Map.of("k", "v"),
				Channel.of("web"), 2, false));
	}

}
