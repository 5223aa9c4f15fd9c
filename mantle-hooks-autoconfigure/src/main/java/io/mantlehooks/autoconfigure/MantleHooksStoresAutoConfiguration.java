package io.mantlehooks.autoconfigure;

import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.mantlehooks.HookDefinitionException;
import io.mantlehooks.HookProblem;
import io.mantlehooks.approval.ApprovalStore;
import io.mantlehooks.approval.InMemoryApprovalStore;
import io.mantlehooks.approval.JdbcApprovalStore;
import io.mantlehooks.approval.ToolApprovalPolicy;
import io.mantlehooks.runtime.execution.HookRunner;
import io.mantlehooks.transcript.InMemoryTranscriptStore;
import io.mantlehooks.transcript.JdbcTranscriptStore;
import io.mantlehooks.transcript.TranscriptStore;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.ClassUtils;

/**
 * Where the transcript and paused approvals are kept: in the application's database when
 * it has a {@link DataSource} (and Spring JDBC), else in memory; a
 * {@code store: jdbc|memory} key decides explicitly. Creates the tables
 * ({@code mantle.hooks.jdbc.initialize-schema}) when a database store is in use. Every
 * call of a database store is bounded by {@code mantle.hooks.jdbc.query-timeout} and a
 * circuit breaker ({@link StoreGuard}); transcript writes go through a queue, off the
 * turn's thread ({@link QueuedTranscriptStore}).
 */
@AutoConfiguration(after = MantleHooksAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		beforeName = "io.mantlehooks.autoconfigure.MantleHooksChatClientAutoConfiguration")
@ConditionalOnBean(HookRunner.class)
public final class MantleHooksStoresAutoConfiguration {

	private static final String JDBC_CLIENT = "org.springframework.jdbc.core.simple.JdbcClient";

	/** Threads writing the transcript, each one conversation's entries at a time. */
	private static final int TRANSCRIPT_WRITERS = 4;

	private static final String SCHEMA = "classpath:io/mantlehooks/jdbc/schema-@@platform@@.sql";

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(MantleHooksProperties.CONFIG_PREFIX + ".transcript.enabled")
	TranscriptStore mantleTranscriptStore(MantleHooksProperties properties, ObjectProvider<DataSource> dataSource,
			CircuitBreakerRegistry breakers, TimeLimiterRegistry timeLimiters, Environment environment) {
		DataSource database = database(properties.getTranscript().getStore(), dataSource, "transcript.store");
		if (database == null) {
			return new InMemoryTranscriptStore();
		}
		checkQueueCapacity(properties.getTranscript().getQueueCapacity());
		Duration timeout = queryTimeout(properties);
		StoreGuard guard = new StoreGuard(StoreGuard.TRANSCRIPT, "transcript store", timeout, breakers, timeLimiters,
				storeExecutor(environment));
		ThreadPoolTaskExecutor writers = new ThreadPoolTaskExecutor();
		writers.setThreadNamePrefix("mantle-transcript-");
		writers.setCorePoolSize(TRANSCRIPT_WRITERS);
		writers.setMaxPoolSize(TRANSCRIPT_WRITERS);
		writers.setAllowCoreThreadTimeOut(true);
		writers.setDaemon(true);
		writers.initialize();
		return new QueuedTranscriptStore(JdbcStores.transcript(database, timeout), guard,
				properties.getTranscript().getQueueCapacity(), writers, writers::shutdown);
	}

	@Bean
	@ConditionalOnMissingBean
	ApprovalStore mantleApprovalStore(MantleHooksProperties properties, ObjectProvider<DataSource> dataSource,
			CircuitBreakerRegistry breakers, TimeLimiterRegistry timeLimiters, Environment environment) {
		DataSource database = database(properties.getApprovals().getStore(), dataSource, "approvals.store");
		if (database == null) {
			return new InMemoryApprovalStore();
		}
		Duration timeout = queryTimeout(properties);
		return new GuardedApprovalStore(JdbcStores.approvals(database, timeout), new StoreGuard(StoreGuard.APPROVALS,
				"approval store", timeout, breakers, timeLimiters, storeExecutor(environment)));
	}

	/**
	 * The threads database store calls run on, so that a caller stops waiting at the time
	 * limit: virtual threads when Spring Boot's spring.threads.virtual.enabled is on;
	 * else a thread per call (an abandoned call holds its thread until the driver gives
	 * up).
	 */
	private static AsyncTaskExecutor storeExecutor(Environment environment) {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("mantle-store-");
		executor.setDaemon(true);
		executor.setVirtualThreads(Threading.VIRTUAL.isActive(environment));
		return executor;
	}

	private static Duration queryTimeout(MantleHooksProperties properties) {
		Duration timeout = properties.getJdbc().getQueryTimeout();
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			String property = MantleHooksProperties.CONFIG_PREFIX + ".jdbc.query-timeout";
			throw new HookDefinitionException(List.of(new HookProblem(
					"Property '" + property + "' is " + timeout + ", but it must be a positive duration.",
					"Set '" + property
							+ "' to a positive duration (for example 2s), or remove it to use the default.")));
		}
		return timeout;
	}

	private static void checkQueueCapacity(int capacity) {
		if (capacity < 1) {
			String property = MantleHooksProperties.CONFIG_PREFIX + ".transcript.queue-capacity";
			throw new HookDefinitionException(List
				.of(new HookProblem("Property '" + property + "' is " + capacity + ", but it must be at least 1.",
						"Set '" + property + "' to a positive number, or remove it to use the default.")));
		}
	}

	/**
	 * The database to keep state in, {@code null} for memory.
	 */
	private static @Nullable DataSource database(MantleHooksProperties.@Nullable StoreType store,
			ObjectProvider<DataSource> dataSource, String key) {
		if (store == MantleHooksProperties.StoreType.MEMORY) {
			return null;
		}
		boolean jdbc = ClassUtils.isPresent(JDBC_CLIENT, MantleHooksStoresAutoConfiguration.class.getClassLoader());
		DataSource database = jdbc ? dataSource.getIfUnique() : null;
		if (store == MantleHooksProperties.StoreType.JDBC && database == null) {
			String property = MantleHooksProperties.CONFIG_PREFIX + "." + key;
			throw new HookDefinitionException(List.of(new HookProblem(
					"Property '" + property + "' is jdbc, but the application has no single DataSource"
							+ (jdbc ? "" : " (nor Spring JDBC)") + ".",
					"Add spring-boot-starter-jdbc and configure a DataSource (spring.datasource.*), or set '" + property
							+ "' to memory.")));
		}
		return database;
	}

	/**
	 * Whether approvals are configured: tools named, or a policy bean.
	 */
	static boolean approvalsConfigured(MantleHooksProperties properties, ObjectProvider<ToolApprovalPolicy> policy) {
		return !properties.getApprovals().getTools().isEmpty() || policy.getIfUnique() != null;
	}

	/**
	 * Keeps the JDBC types out of the auto-configuration's signatures, so it loads
	 * without Spring JDBC.
	 */
	private static final class JdbcStores {

		static TranscriptStore transcript(DataSource dataSource, Duration queryTimeout) {
			return new JdbcTranscriptStore(dataSource, queryTimeout);
		}

		static ApprovalStore approvals(DataSource dataSource, Duration queryTimeout) {
			return new JdbcApprovalStore(dataSource, queryTimeout);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(
			name = { "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer", JDBC_CLIENT })
	@ConditionalOnBean(DataSource.class)
	static class SchemaConfiguration {

		/**
		 * Creates {@code mantle_transcript} and {@code mantle_approvals} when a database
		 * store is in use, as {@code mantle.hooks.jdbc.initialize-schema} says.
		 */
		@Bean
		@ConditionalOnMissingBean(name = "mantleHooksSchemaInitializer")
		DataSourceScriptDatabaseInitializer mantleHooksSchemaInitializer(DataSource dataSource,
				MantleHooksProperties properties, ObjectProvider<TranscriptStore> transcript,
				ObjectProvider<ApprovalStore> approvals, ObjectProvider<ToolApprovalPolicy> policy) {
			boolean needed = isJdbc(transcript.getIfUnique())
					|| (approvalsConfigured(properties, policy) && isJdbc(approvals.getIfUnique()));
			DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
			settings
				.setMode(needed ? mode(properties.getJdbc().getInitializeSchema()) : DatabaseInitializationMode.NEVER);
			if (needed && settings.getMode() != DatabaseInitializationMode.NEVER) {
				List<String> locations = new PlatformPlaceholderDatabaseDriverResolver().resolveAll(dataSource, SCHEMA);
				for (String location : locations) {
					if (!new DefaultResourceLoader().getResource(location).exists()) {
						String property = MantleHooksProperties.CONFIG_PREFIX + ".jdbc.initialize-schema";
						throw new HookDefinitionException(List.of(new HookProblem(
								"mantle-hooks has no schema for this database (" + location + " does not exist).",
								"Create the tables mantle_transcript and mantle_approvals yourself (see "
										+ "io/mantlehooks/jdbc/schema-postgresql.sql in the mantle-hooks jar) and set '"
										+ property + "' to never.")));
					}
				}
				settings.setSchemaLocations(locations);
			}
			return new DataSourceScriptDatabaseInitializer(dataSource, settings);
		}

		/**
		 * Whether a store bean keeps its data in the database tables of the starter.
		 */
		private static boolean isJdbc(@Nullable Object store) {
			if (store instanceof QueuedTranscriptStore queued) {
				return isJdbc(queued.delegate());
			}
			if (store instanceof GuardedApprovalStore guarded) {
				return isJdbc(guarded.delegate());
			}
			return store instanceof JdbcTranscriptStore || store instanceof JdbcApprovalStore;
		}

		private static DatabaseInitializationMode mode(MantleHooksProperties.SchemaInitialization initialization) {
			return switch (initialization) {
				case ALWAYS -> DatabaseInitializationMode.ALWAYS;
				case EMBEDDED -> DatabaseInitializationMode.EMBEDDED;
				case NEVER -> DatabaseInitializationMode.NEVER;
			};
		}

	}

}
