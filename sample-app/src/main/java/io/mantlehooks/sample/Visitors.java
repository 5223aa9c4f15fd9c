package io.mantlehooks.sample;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.http.HttpSession;

import org.springframework.stereotype.Component;
import org.springframework.web.util.WebUtils;

/**
 * Who is talking: each browser is a visitor, known by a random id kept in its HTTP
 * session (the session cookie), never by anything the request says about itself. That id
 * is the turns' sender id, so the library lets only the visitor who paused a refund
 * approve it; and a conversation belongs to the first visitor who writes in it, so no
 * other visitor can write in it, decide its approvals or read its transcript through the
 * chat API. The turn console ({@code /actuator/mantlehooks}, {@code /mantle-console}) is
 * an operator's view of every conversation, texts included: the sample exposes it without
 * a login for the demo; a real application secures it (docs/console.md, "Securing it").
 * <p>
 * The session id itself is not used as the sender id: sender ids are written to the
 * transcript, logs and the turn console, and a session id is a credential.
 */
@Component
class Visitors {

	private static final String ATTRIBUTE = Visitors.class.getName() + ".id";

	/**
	 * The demo keeps everything in memory; this bounds what strangers can make it keep.
	 */
	private static final int MAX_CONVERSATIONS = 100_000;

	private final SecureRandom random = new SecureRandom();

	private final Map<String, String> owners = new ConcurrentHashMap<>();

	/**
	 * Return the visitor of a session, making one on its first request.
	 * @param session the browser's session
	 * @return the visitor id
	 */
	String visitor(HttpSession session) {
		synchronized (WebUtils.getSessionMutex(session)) {
			Object id = session.getAttribute(ATTRIBUTE);
			if (id instanceof String visitor) {
				return visitor;
			}
			byte[] bytes = new byte[12];
			this.random.nextBytes(bytes);
			String visitor = "visitor-" + HexFormat.of().formatHex(bytes);
			session.setAttribute(ATTRIBUTE, visitor);
			return visitor;
		}
	}

	/**
	 * Make sure the visitor may write in a conversation: it is theirs, or new and now
	 * theirs.
	 * @param conversationId the conversation
	 * @param visitor the visitor id
	 * @throws NotYourConversationException when another visitor owns it
	 * @throws TooManyConversationsException when the demo keeps no more conversations
	 */
	void writeIn(String conversationId, String visitor) {
		String owner = this.owners.get(conversationId);
		if (owner == null) {
			if (this.owners.size() >= MAX_CONVERSATIONS) {
				throw new TooManyConversationsException();
			}
			owner = this.owners.putIfAbsent(conversationId, visitor);
			owner = (owner != null) ? owner : visitor;
		}
		if (!owner.equals(visitor)) {
			throw new NotYourConversationException();
		}
	}

	/**
	 * Make sure the visitor may read a conversation: it is theirs or nobody's yet.
	 * @param conversationId the conversation
	 * @param visitor the visitor id
	 * @throws NotYourConversationException when another visitor owns it
	 */
	void readIn(String conversationId, String visitor) {
		String owner = this.owners.get(conversationId);
		if (owner != null && !owner.equals(visitor)) {
			throw new NotYourConversationException();
		}
	}

	/**
	 * A visitor named a conversation another visitor owns.
	 */
	static class NotYourConversationException extends RuntimeException {

		NotYourConversationException() {
			super("This conversation belongs to another visitor");
		}

	}

	/**
	 * The demo holds as many conversations as it keeps.
	 */
	static class TooManyConversationsException extends RuntimeException {

		TooManyConversationsException() {
			super("The demo holds no more conversations; restart it");
		}

	}

}
