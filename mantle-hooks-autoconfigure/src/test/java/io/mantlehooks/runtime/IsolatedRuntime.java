package io.mantlehooks.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPayload;
import io.mantlehooks.HookPoint;
import io.mantlehooks.IncomingMessagePayload;
import io.mantlehooks.KnowledgeQueryPayload;
import io.mantlehooks.KnowledgeResultsPayload;
import io.mantlehooks.ModelRequestPayload;
import io.mantlehooks.ModelResponsePayload;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModifyResult;
import io.mantlehooks.OutgoingTextPayload;
import io.mantlehooks.ToolCallPayload;
import io.mantlehooks.ToolResultPayload;
import io.mantlehooks.annotation.ModifyIncomingMessage;
import io.mantlehooks.annotation.ModifyKnowledgeQuery;
import io.mantlehooks.annotation.ModifyKnowledgeResults;
import io.mantlehooks.annotation.ModifyModelRequest;
import io.mantlehooks.annotation.ModifyModelResponse;
import io.mantlehooks.annotation.ModifyOutgoingText;
import io.mantlehooks.annotation.ModifyToolCall;
import io.mantlehooks.annotation.ModifyToolResult;
import io.mantlehooks.runtime.discovery.HookMethodProcessor;
import io.mantlehooks.runtime.discovery.HookTimeouts;
import io.mantlehooks.runtime.execution.HookRunner;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * Discovers hooks and runs a modify hook at every point, by hand, with no Spring AI class
 * involved; {@link RuntimeIsolationTests} runs it in a class loader that has no Spring AI
 * at all.
 */
public final class IsolatedRuntime {

	private IsolatedRuntime() {
	}

	/**
	 * Return, per point with a modify lane, what the hook decided.
	 * @return one line per point
	 */
	public static List<String> run() {
		HookRegistry registry = registryWith(new EveryPointHooks());
		ExecutorService executor = Executors.newCachedThreadPool();
		HookRunner runner = new HookRunner(registry, executor);
		List<String> results = new ArrayList<>();
		try {
			for (HookPoint point : HookPoint.values()) {
				if (point.hasModifyLane()) {
					ModifyResult<HookPayload> result = runner.runAndWait(point, payload(point), HookScope.none());
					results.add(point.configName() + " " + describe(result));
				}
			}
		}
		finally {
			runner.destroy();
			executor.shutdownNow();
		}
		return results;
	}

	/**
	 * Return the registry of one hook bean, discovered as at startup, with timeouts of 2
	 * seconds.
	 * @param hooks the hook bean
	 * @return the registry
	 */
	static HookRegistry registryWith(Object hooks) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("hooks", hooks);
		HookRegistry registry = new HookRegistry();
		HookMethodProcessor processor = new HookMethodProcessor(registry,
				new HookTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2), Map.of(), Map.of()),
				"mantle.hooks.timeouts");
		processor.setBeanFactory(beanFactory);
		processor.afterSingletonsInstantiated();
		return registry;
	}

	private static String describe(ModifyResult<HookPayload> result) {
		if (result instanceof ModifyResult.Proceed<HookPayload> proceed) {
			HookPayload payload = proceed.payload();
			if (payload instanceof ModelRequestPayload request) {
				return "proceeded temperature=" + request.modelSettings().temperature();
			}
			return "proceeded " + payload.senderId();
		}
		return result.toString();
	}

	private static HookPayload payload(HookPoint point) {
		Channel channel = Channel.of("isolated");
		return switch (point) {
			case INCOMING_MESSAGE -> new IncomingMessagePayload("hi", "m", "sender", Map.of(), channel);
			case MODEL_REQUEST ->
				new ModelRequestPayload(List.of(), ModelSettings.empty(), List.of(), 1, "sender", Map.of(), channel);
			case MODEL_RESPONSE -> new ModelResponsePayload("hi", List.of(), 1L, "sender", Map.of(), channel);
			case TOOL_CALL -> new ToolCallPayload("t", Map.of(), Map.of(), Map.of(), "sender", Map.of(), channel);
			case TOOL_RESULT -> new ToolResultPayload("t", Map.of(), "v", false, "sender", Map.of(), channel);
			case KNOWLEDGE_QUERY -> new KnowledgeQueryPayload("q", "sender", Map.of(), channel);
			case KNOWLEDGE_RESULTS -> new KnowledgeResultsPayload("q", List.of(), "sender", Map.of(), channel);
			case OUTGOING_TEXT -> new OutgoingTextPayload("hi", false, "sender", Map.of(), channel);
			default -> throw new IllegalArgumentException(point.toString());
		};
	}

	public static class EveryPointHooks {

		@ModifyIncomingMessage
		public IncomingMessagePayload incoming(IncomingMessagePayload payload) {
			return payload.withText("rewritten");
		}

		@ModifyModelRequest
		public ModelRequestPayload request(ModelRequestPayload payload) {
			return payload.withModelSettings(payload.modelSettings().withTemperature(0.1));
		}

		@ModifyModelResponse
		public ModelResponsePayload response(ModelResponsePayload payload) {
			return payload;
		}

		@ModifyToolCall
		public ToolCallPayload toolCall(ToolCallPayload payload) {
			return payload;
		}

		@ModifyToolResult
		public ToolResultPayload toolResult(ToolResultPayload payload) {
			return payload;
		}

		@ModifyKnowledgeQuery
		public KnowledgeQueryPayload query(KnowledgeQueryPayload payload) {
			return payload;
		}

		@ModifyKnowledgeResults
		public KnowledgeResultsPayload results(KnowledgeResultsPayload payload) {
			return payload;
		}

		@ModifyOutgoingText
		public OutgoingTextPayload outgoing(OutgoingTextPayload payload) {
			return payload;
		}

	}

}
