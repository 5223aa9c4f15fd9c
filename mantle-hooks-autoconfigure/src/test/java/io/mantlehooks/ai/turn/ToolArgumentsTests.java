package io.mantlehooks.ai.turn;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the model's tool-call arguments reach hooks: a JSON object becomes its map,
 * anything else no arguments, never an exception; {@code parseObject} tells the two
 * apart, so the engine can refuse a call whose arguments no hook could read.
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

	@Test
	void parseObjectTellsArgumentsNoHookCouldReadFromNone() {
		assertThat(ToolArguments.parseObject("{\"orderId\":\"42\"}")).containsEntry("orderId", "42");
		assertThat(ToolArguments.parseObject("{}")).isEmpty();
		// a tool without parameters: the model sends nothing
		assertThat(ToolArguments.parseObject(null)).isEmpty();
		assertThat(ToolArguments.parseObject(" ")).isEmpty();
		assertThat(ToolArguments.parseObject("[{\"orderId\":\"42\"}]")).isNull();
		assertThat(ToolArguments.parseObject("\"42\"")).isNull();
		assertThat(ToolArguments.parseObject("null")).isNull();
		assertThat(ToolArguments.parseObject("{\"orderId\": ")).isNull();
		assertThat(ToolArguments.parseObject("{\"a\":1} {\"a\":2}")).isNull();
		assertThat(ToolArguments.parseObject("[".repeat(10_000) + "]".repeat(10_000))).isNull();
	}

}
