package io.mantlehooks.ai.turn;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the model's tool-call arguments reach hooks: a JSON object becomes its map,
 * anything else no arguments, never an exception.
 */
class ToolArgumentsTests {

	@Test
	void aJsonObjectIsReadWithItsNestedValues() {
		Map<String, Object> arguments = ToolArguments
			.parse("{\"orderId\":\"42\",\"lines\":[1,2],\"ship\":{\"to\":\"DE\"}}");
		assertThat(arguments).containsEntry("orderId", "42")
			.containsEntry("lines", List.of(1, 2))
			.containsEntry("ship", Map.of("to", "DE"));
	}

	@Test
	void blankMissingOrNonObjectArgumentsAreNone() {
		assertThat(ToolArguments.parse(null)).isEmpty();
		assertThat(ToolArguments.parse("  ")).isEmpty();
		assertThat(ToolArguments.parse("[1,2]")).isEmpty();
		assertThat(ToolArguments.parse("\"42\"")).isEmpty();
		assertThat(ToolArguments.parse("null")).isEmpty();
	}

	@Test
	void argumentsThatAreNotJsonAreNoneAndTheReaderStaysUsable() {
		assertThat(ToolArguments.parse("{\"orderId\": ")).isEmpty();
		assertThat(ToolArguments.parse("orderId=42")).isEmpty();
		assertThat(ToolArguments.parse("{\"a\":1} trailing")).isEmpty();
		// the shared reader keeps no state from a failed read
		assertThat(ToolArguments.parse("{\"orderId\":\"42\"}")).containsEntry("orderId", "42");
	}

	@Test
	void argumentsNestedTenThousandDeepAreNoneRatherThanAFailure() {
		String deep = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);
		assertThat(ToolArguments.parse(deep)).isEmpty();
	}

}
