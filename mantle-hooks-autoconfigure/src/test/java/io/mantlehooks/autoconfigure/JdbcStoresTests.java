package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.InMemoryApprovalStore;
import io.mantlehooks.approval.JdbcApprovalStore;
import io.mantlehooks.approval.PendingApproval;
import io.mantlehooks.transcript.InMemoryTranscriptStore;
import io.mantlehooks.transcript.JdbcTranscriptStore;
import io.mantlehooks.transcript.TranscriptEntry;
import io.mantlehooks.transcript.TranscriptRole;
import io.mantlehooks.transcript.TranscriptStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The transcript and approval stores the starter picks, on H2: the database when the
 * application has one, with the tables created; memory without; and the store contracts
 * themselves (order, claim once, expiry, conversation).
 */
class JdbcStoresTests {

	private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, MantleHooksAutoConfiguration.class,
				MantleHooksStoresAutoConfiguration.class))
		.withPropertyValues("mantle.hooks.transcript.enabled=true", "mantle.hooks.approvals.tools=refund");

	@Test
	void withADataSourceBothStoresUseItAndTheTablesAreCreated() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(TranscriptStore.class)).isInstanceOfSatisfying(QueuedTranscriptStore.class,
					(queued) -> assertThat(queued.delegate()).isInstanceOf(JdbcTranscriptStore.class));
			assertThat(context.getBean(ApprovalStore.class)).isInstanceOfSatisfying(GuardedApprovalStore.class,
					(guarded) -> assertThat(guarded.delegate()).isInstanceOf(JdbcApprovalStore.class));
			// both behind circuit breakers of the application's registry, so meters
			// bind them
			assertThat(context.getBean(CircuitBreakerRegistry.class).getAllCircuitBreakers())
				.extracting(CircuitBreaker::getName)
				.contains("mantle.store.transcript", "mantle.store.approvals");
			transcriptContract(context.getBean(TranscriptStore.class));
			approvalContract(context.getBean(ApprovalStore.class));
		});
	}

	@Test
	void withoutADataSourceBothStoresAreInMemory() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.h2", "com.zaxxer", "org.postgresql"))
			.run((context) -> {
				assertThat(context.getBean(TranscriptStore.class)).isInstanceOf(InMemoryTranscriptStore.class);
				assertThat(context.getBean(ApprovalStore.class)).isInstanceOf(InMemoryApprovalStore.class);
				transcriptContract(context.getBean(TranscriptStore.class));
				approvalContract(context.getBean(ApprovalStore.class));
			});
	}

	@Test
	void memoryCanBeChosenOverTheDatabase() {
		this.contextRunner.withPropertyValues("mantle.hooks.transcript.store=memory")
			.run((context) -> assertThat(context.getBean(TranscriptStore.class))
				.isInstanceOf(InMemoryTranscriptStore.class));
	}

	@Test
	void jdbcWithoutADataSourceFailsStartupWithTheKey() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.h2", "com.zaxxer", "org.postgresql"))
			.withPropertyValues("mantle.hooks.approvals.store=jdbc")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Property 'mantle.hooks.approvals.store' is jdbc, but the application has no "
						+ "single DataSource"));
	}

	@Test
	void noSchemaIsCreatedWhenSaidSo() {
		this.contextRunner.withPropertyValues("mantle.hooks.jdbc.initialize-schema=never").run((context) -> {
			QueuedTranscriptStore store = context.getBean(QueuedTranscriptStore.class);
			// the write fails in the background: counted, never thrown at the turn
			store.append(entry("c-1", TranscriptRole.USER, "hi", NOW));
			assertThatException().isThrownBy(() -> store.find("c-1"))
				.withMessageContaining("bad SQL grammar [SELECT conversation_id");
			assertThat(store.getFailedWrites()).isOne();
		});
	}

	@Test
	void valuesTheTableRefusesAreCountedButDoNotOpenTheBreaker() {
		this.contextRunner.run((context) -> {
			QueuedTranscriptStore store = context.getBean(QueuedTranscriptStore.class);
			// one client's oversized conversation id (the column holds 255 characters)
			String oversized = "c".repeat(300);
			for (int i = 0; i < 12; i++) {
				store.append(entry(oversized, TranscriptRole.USER, "hi " + i, NOW));
			}
			assertThat(store.find(oversized)).isEmpty();
			assertThat(store.getFailedWrites()).isEqualTo(12);
			// everyone else's transcript is still written
			CircuitBreaker breaker = context.getBean(CircuitBreakerRegistry.class)
				.circuitBreaker("mantle.store.transcript");
			assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
			store.append(entry("c-ok", TranscriptRole.USER, "hello", NOW));
			assertThat(store.find("c-ok")).extracting(TranscriptEntry::text).containsExactly("hello");
		});
	}

	@Test
	void aQueryTimeoutThatIsNotPositiveFailsStartupWithTheKey() {
		this.contextRunner.withPropertyValues("mantle.hooks.jdbc.query-timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Property 'mantle.hooks.jdbc.query-timeout' is PT0S, but it must be a positive "
						+ "duration."));
	}

	@Test
	void concurrentClaimsOfOneBatchGetItOnce() throws Exception {
		this.contextRunner.run((context) -> {
			ApprovalStore store = context.getBean(ApprovalStore.class);
			store.save(approval("a-race", "c-1", NOW.plus(Duration.ofMinutes(15))));
			ExecutorService threads = Executors.newFixedThreadPool(8);
			try {
				List<Callable<Optional<PendingApproval>>> claims = new ArrayList<>();
				for (int i = 0; i < 8; i++) {
					claims.add(() -> store.claim("a-race", "c-1", NOW));
				}
				long won = 0;
				for (Future<Optional<PendingApproval>> claim : threads.invokeAll(claims)) {
					won += claim.get().isPresent() ? 1 : 0;
				}
				assertThat(won).isOne();
			}
			finally {
				threads.shutdownNow();
			}
		});
	}

	static void transcriptContract(TranscriptStore store) {
		Instant at = NOW;
		// the reply of the same instant comes after the user's message
		store.append(entry("c-1", TranscriptRole.ASSISTANT, "No spam here.", at.plusMillis(5)));
		store.append(entry("c-1", TranscriptRole.USER, "send me spam", at.plusMillis(5)));
		store.append(entry("c-1", TranscriptRole.USER, "Hello", at));
		store.append(entry("c-2", TranscriptRole.USER, "Elsewhere", at));
		assertThat(store.find("c-1")).extracting(TranscriptEntry::text)
			.containsExactly("Hello", "send me spam", "No spam here.");
		TranscriptEntry first = store.find("c-1").get(0);
		assertThat(first.timestamp()).isEqualTo(at);
		assertThat(first.outcome()).isNull();
		assertThat(store.find("c-1").get(1).discarded()).isTrue();
		assertThat(store.find("c-1").get(1).outcome()).isEqualTo("rejected");
		store.delete("c-1");
		assertThat(store.find("c-1")).isEmpty();
		assertThat(store.find("c-2")).hasSize(1);
		// U+0000 (which PostgreSQL text cannot hold) and U+0001 (the escape) read back
		// as written
		List<String> texts = List.of("nul\u0000in the middle", "\u0001starts with the escape", "\u0001\u00000\u0001",
				"\u0000");
		texts.forEach((text) -> store.append(entry("c-3", TranscriptRole.USER, text, at)));
		assertThat(store.find("c-3")).extracting(TranscriptEntry::text).containsExactlyInAnyOrderElementsOf(texts);
		store.append(new TranscriptEntry("c-\u00004", "t-1", "user\u0000-1", "web\u0000", TranscriptRole.USER, "x",
				false, null, at));
		assertThat(store.find("c-\u00004")).singleElement()
			.satisfies((entry) -> assertThat(entry.senderId()).isEqualTo("user\u0000-1"))
			.satisfies((entry) -> assertThat(entry.channel()).isEqualTo("web\u0000"));
	}

	static void approvalContract(ApprovalStore store) {
		store.save(approval("a-1", "c-1", NOW.plus(Duration.ofMinutes(15))));
		store.save(approval("a-2", "c-1", NOW.plusSeconds(1)));
		store.save(approval("a-3", "c-1", NOW.plus(Duration.ofMinutes(15))));
		assertThat(store.claim("a-1", "c-other", NOW)).as("another conversation").isEmpty();
		Optional<PendingApproval> claimed = store.claim("a-1", "c-1", NOW);
		assertThat(claimed).hasValueSatisfying((approval) -> {
			assertThat(approval.batch()).isEqualTo("{\"batch\":\"a-1\"}");
			assertThat(approval.senderId()).isEqualTo("user-1");
		});
		assertThat(store.claim("a-1", "c-1", NOW)).as("claimed once").isEmpty();
		assertThat(store.claim("a-2", "c-1", NOW.plusSeconds(2))).as("expired").isEmpty();
		store.delete("a-3");
		assertThat(store.claim("a-3", "c-1", NOW)).as("deleted").isEmpty();
		assertThat(store.claim("nope", "c-1", NOW)).isEmpty();
	}

	private static TranscriptEntry entry(String conversation, TranscriptRole role, String text, Instant at) {
		boolean discarded = text.contains("spam");
		return new TranscriptEntry(conversation, "t-1", "user-1", "web", role, text, discarded,
				discarded ? "rejected" : null, at);
	}

	private static PendingApproval approval(String id, String conversation, Instant expiresAt) {
		return new PendingApproval(id, conversation, "user-1", "web", NOW, expiresAt, "{\"batch\":\"" + id + "\"}");
	}

}
