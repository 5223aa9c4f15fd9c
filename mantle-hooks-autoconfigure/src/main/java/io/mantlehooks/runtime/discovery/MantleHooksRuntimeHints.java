package io.mantlehooks.runtime.discovery;

import java.util.ArrayList;
import java.util.List;

import io.mantlehooks.Channel;
import io.mantlehooks.HookPoint;
import io.mantlehooks.ModelSettings;
import io.mantlehooks.ModelToolCall;
import io.mantlehooks.Passage;
import io.mantlehooks.TurnStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs beyond the hook methods: the payload types (their accessors
 * and {@code with...} methods are called by the runner's identity wall and by code that
 * serializes payloads, such as the console) and the bytecode check recorded at build
 * time.
 */
final class MantleHooksRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<?> type : payloadTypes()) {
			hints.reflection()
				.registerType(type, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
		hints.resources().registerPattern(RecordedChecks.LOCATION);
	}

	static List<Class<?>> payloadTypes() {
		List<Class<?>> types = new ArrayList<>();
		for (HookPoint point : HookPoint.values()) {
			types.add(point.payloadType());
		}
		types.addAll(List.of(Channel.class, ModelSettings.class, ModelToolCall.class, Passage.class, TurnStatus.class));
		return types;
	}

}
