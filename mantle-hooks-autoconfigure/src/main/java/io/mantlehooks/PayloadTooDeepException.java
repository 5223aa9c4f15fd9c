package io.mantlehooks;

/**
 * Thrown when a payload would hold maps or lists nested deeper than mantle-hooks accepts
 * (or a map that contains itself). A modify hook that returns such a payload gets its
 * point's fail policy, as for any invalid return; turn identity ({@code call} metadata)
 * nested that deep fails the turn before it starts.
 */
public final class PayloadTooDeepException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	PayloadTooDeepException(int maxDepth) {
		super("Maps and lists in hook payloads may nest at most " + maxDepth + " levels deep");
	}

}
