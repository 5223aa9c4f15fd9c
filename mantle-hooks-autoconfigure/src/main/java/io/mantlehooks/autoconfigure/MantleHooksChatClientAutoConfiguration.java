package io.mantlehooks.autoconfigure;

import java.time.Clock;
import java.util.Set;

import io.mantlehooks.ai.approval.ToolApprovals;
import io.mantlehooks.ai.chat.MantleChatClientCustomizer;
import io.mantlehooks.ai.knowledge.KnowledgeBeanPostProcessor;
import io.mantlehooks.ai.model.ChatModelBeanPostProcessor;
import io.mantlehooks.ai.model.UnhookedCallCoverageCheck;
import io.mantlehooks.ai.model.UnhookedCallDetector;
import io.mantlehooks.ai.tool.MantleMcpMetaConverter;
import io.mantlehooks.ai.turn.CurrentTurnPropagation;
import io.mantlehooks.approval.ApprovalAuthorizer;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.ToolApprovalPolicy;
import io.mantlehooks.observation.TurnObservationConvention;
import io.mantlehooks.runtime.HookRegistry;
import io.mantlehooks.runtime.HookResponses;
import io.mantlehooks.runtime.discovery.HookMethodProcessor;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.transcript.TranscriptStore;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the hook points into every {@link ChatClient} made from Spring Boot's
 * {@code ChatClient.Builder}: adding the starter is enough. Also wraps knowledge stores
 * and chat models, and carries the current turn through streamed turns.
 */
@AutoConfiguration(after = MantleHooksAutoConfiguration.class,
		afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration",
		beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass(ChatClient.class)
@ConditionalOnBean(HookRunner.class)
public final class MantleHooksChatClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MantleChatClientCustomizer mantleChatClientCustomizer(HookRunner hooks, HookResponses responses,
			ObjectProvider<ToolCallingManager> toolCallingManager, MantleHooksProperties properties,
			HookMethodProcessor processor, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<TurnObservationConvention> convention, ObjectProvider<ToolApprovalPolicy> approvalPolicy,
			ObjectProvider<ApprovalStore> approvalStore, ObjectProvider<ApprovalAuthorizer> approvalAuthorizer,
			ObjectProvider<TranscriptStore> transcript) {
		ToolApprovals approvals = null;
		ApprovalStore store = approvalStore.getIfUnique();
		if (store != null && MantleHooksStoresAutoConfiguration.approvalsConfigured(properties, approvalPolicy)) {
			approvals = new ToolApprovals(Set.copyOf(properties.getApprovals().getTools()),
					approvalPolicy.getIfUnique(), store, properties.getApprovals().getTtl(), Clock.systemUTC(),
					approvalAuthorizer.getIfUnique(),
					properties.getApprovals().getDecidedBy() == MantleHooksProperties.Approvals.DecidedBy.SENDER,
					responses);
		}
		return new MantleChatClientCustomizer(hooks, responses,
				toolCallingManager.getIfAvailable(() -> ToolCallingManager.builder().build()),
				properties.getMaxIterations(), processor::pointsWithHooks,
				observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), convention.getIfUnique(), approvals,
				transcript.getIfUnique(), properties.getStreaming().getMaxSegmentLength());
	}

	@Bean
	static KnowledgeBeanPostProcessor mantleKnowledgeBeanPostProcessor(ObjectProvider<HookRunner> hooks) {
		return new KnowledgeBeanPostProcessor(hooks);
	}

	@Bean
	CurrentTurnPropagation mantleCurrentTurnPropagation(HookRunner hooks) {
		return new CurrentTurnPropagation(hooks.getRegistry());
	}

	@Bean
	@ConditionalOnMissingBean
	UnhookedCallDetector mantleUnhookedCallDetector(HookRegistry registry, MantleHooksProperties properties) {
		return new UnhookedCallDetector(registry, properties.getUnhookedCalls());
	}

	@Bean
	static ChatModelBeanPostProcessor mantleChatModelBeanPostProcessor(ObjectProvider<UnhookedCallDetector> detector,
			ObjectProvider<HookMethodProcessor> processor) {
		return new ChatModelBeanPostProcessor(detector, () -> processor.getObject().pointsWithHooks());
	}

	/**
	 * Adds the unhooked-call handler to the observation registry once the context is up,
	 * or names the chat models whose unhooked calls cannot be seen (asking for the
	 * registry earlier would be a cycle: the registry collects the handlers; and only
	 * then does the registry know whether anything else listens).
	 */
	@Bean
	static UnhookedCallCoverageCheck mantleUnhookedCallCoverageCheck(ObjectProvider<ChatModelBeanPostProcessor> models,
			ObjectProvider<UnhookedCallDetector> detector, ObjectProvider<HookMethodProcessor> processor,
			ObjectProvider<ObservationRegistry> observationRegistry) {
		return new UnhookedCallCoverageCheck(models, detector, () -> processor.getObject().pointsWithHooks(),
				observationRegistry);
	}

	/**
	 * Sends tool-call hook metadata to MCP servers as {@code _meta}; Spring AI's MCP
	 * client auto-configuration picks up a single converter bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ToolContextToMcpMetaConverter.class)
	static class McpMetaConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ToolContextToMcpMetaConverter mantleMcpMetaConverter() {
			return new MantleMcpMetaConverter();
		}

	}

}
