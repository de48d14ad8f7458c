package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What one kind of resource hands {@link ResourceReporter}: how its status keeps the reservation
 * and holds its conditions, and what it remembers having told before it told anything. One value
 * per kind, so that the parts of one kind travel together and none can take another's place.
 *
 * @param keepReservation the status to write with a reservation never below the server's: {@code
 *     keepReservation(current, next)}
 * @param reserved the reservation (of terms or tokens) a status records, 0 for none
 * @param conditions a status's conditions, and {@code setConditions} sets them: the status written
 *     keeps the transition times the server has for conditions that did not change
 * @param nothingOwn what the kind remembers before it told anything of its own
 * @param <S> the resource's status
 * @param <X> what the kind remembers having told, besides what every kind does
 */
public record ReportedKind<S, X>(
    BinaryOperator<S> keepReservation,
    ToLongFunction<S> reserved,
    Function<S, List<Condition>> conditions,
    BiConsumer<S, List<Condition>> setConditions,
    X nothingOwn) {}
