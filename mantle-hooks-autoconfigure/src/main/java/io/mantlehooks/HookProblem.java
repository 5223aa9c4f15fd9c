package io.mantlehooks;

/**
 * One thing wrong with the application's hooks or their configuration, and what to do
 * about it.
 *
 * @param description what is wrong, naming the annotation, bean and method
 * @param action how to fix it
 */
public record HookProblem(String description, String action) {

}
