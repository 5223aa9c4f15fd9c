package io.mantlehooks.ai.model;

import java.lang.reflect.Method;

import io.mantlehooks.ai.turn.CurrentTurn;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.aop.support.AopUtils;

/**
 * Checks each {@code call} and {@code stream} of a proxied {@code ChatModel} bean. A
 * stream is checked when it is subscribed: the turn is then in the subscriber's Reactor
 * context, whatever thread subscribes.
 */
final class UnhookedCallInterceptor implements MethodInterceptor {

	private final UnhookedCallDetector detector;

	private final String beanName;

	UnhookedCallInterceptor(UnhookedCallDetector detector, String beanName) {
		this.detector = detector;
		this.beanName = beanName;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		if ("stream".equals(method.getName()) && Flux.class.isAssignableFrom(method.getReturnType())) {
			Object target = invocation.getThis();
			Object[] arguments = invocation.getArguments();
			return Flux.deferContextual((context) -> {
				boolean inTurn = UnhookedCallDetector.inTurnOnThread() || context.hasKey(CurrentTurn.KEY);
				this.detector.check(this.beanName, inTurn);
				return UnhookedCallDetector.checked(() -> (Flux<?>) invoke(target, method, arguments));
			});
		}
		if ("call".equals(method.getName())) {
			this.detector.check(this.beanName, UnhookedCallDetector.inTurnOnThread());
			return UnhookedCallDetector.checked(() -> proceed(invocation));
		}
		return invocation.proceed();
	}

	private static @Nullable Object proceed(MethodInvocation invocation) {
		try {
			return invocation.proceed();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable Object invoke(@Nullable Object target, Method method, Object[] arguments) {
		try {
			return AopUtils.invokeJoinpointUsingReflection(target, method, arguments);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

}
