package io.mantlehooks;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.ai.tool.annotation.Tool;

/**
 * The tool the approval tests pause for: {@code wipe}, which counts how often it really
 * ran.
 */
public class WipeTools {

	/** How often {@code wipe} ran. */
	public final AtomicInteger wiped = new AtomicInteger();

	@Tool(description = "wipe everything")
	String wipe() {
		this.wiped.incrementAndGet();
		return "wiped";
	}

}
