package io.mantlehooks.annotation;

/**
 * What an outgoing-text modify hook sees of a streamed reply.
 *
 * @see ModifyOutgoingText#stream()
 */
public enum StreamMode {

	/**
	 * The whole reply, once it is complete (the specification's behaviour): a streamed
	 * turn sends nothing until the hook has decided.
	 */
	WHOLE,

	/**
	 * Each sentence of a streamed reply as soon as it is complete, in order
	 * ({@code segment}, {@code finalSegment}); the rewritten sentence goes out at once.
	 * {@code .call()} turns still see the whole reply.
	 */
	SENTENCES

}
