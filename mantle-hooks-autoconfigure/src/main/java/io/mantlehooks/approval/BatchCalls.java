package io.mantlehooks.approval;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.mantlehooks.MantleHooks;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the calls out of a stored batch, the JSON the engine's codec writes
 * ({@code output.toolCalls[].name} and {@code .arguments}): the same text a resumed turn
 * runs, so what is listed cannot differ from what runs. A call a tool-call hook refused
 * ({@code refusals[i]} set) does not run if the batch is approved, so it is not listed.
 * The agent that paused the batch is {@code agent}, absent for the default agent.
 */
final class BatchCalls {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private BatchCalls() {
	}

	/**
	 * Read the agent whose turn paused the batch; a batch stored without one (by a
	 * release before agents, or by a client that named none) is the default agent's.
	 * @param batch the stored batch
	 * @return the agent's name
	 */
	static String agent(String batch) {
		try {
			Object agent = JSON.readValue(batch, Map.class).get("agent");
			return (agent instanceof String name && !name.isEmpty()) ? name : MantleHooks.DEFAULT_AGENT;
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Not a stored tool-call batch", ex);
		}
	}

	@SuppressWarnings("unchecked")
	static List<ApprovalCall> read(String batch) {
		try {
			Map<String, Object> json = JSON.readValue(batch, Map.class);
			Map<String, Object> output = (Map<String, Object>) json.get("output");
			List<Map<String, Object>> calls = (List<Map<String, Object>>) output.getOrDefault("toolCalls", List.of());
			List<Object> refusals = (List<Object>) json.getOrDefault("refusals", List.of());
			List<ApprovalCall> read = new ArrayList<>(calls.size());
			for (int i = 0; i < calls.size(); i++) {
				if (i < refusals.size() && refusals.get(i) != null) {
					continue;
				}
				Map<String, Object> call = calls.get(i);
				read.add(new ApprovalCall((String) call.get("name"), (String) call.get("arguments")));
			}
			return List.copyOf(read);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Not a stored tool-call batch", ex);
		}
	}

}
