package io.mantlehooks;

/**
 * What happens when a {@code ChatModel} is called outside a hooked turn, for example from
 * a {@code ChatClient} built without the hook advisors
 * ({@code ChatClient.create(model)}).
 */
public enum UnhookedCallPolicy {

	/** Log one warning per calling class, naming the fix; the call goes on. */
	WARN,

	/** Refuse the call with an {@link UnhookedModelCallException}. */
	FAIL,

	/** Let the call go on without a word. */
	IGNORE

}
