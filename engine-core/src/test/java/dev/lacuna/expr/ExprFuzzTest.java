package dev.lacuna.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.Ast.Index;
import dev.lacuna.expr.Ast.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.function.Executable;

/**
 * Fuzzes the four expression parsers and what runs on their output: whatever the expression and the
 * placeholders (decoded by {@link FuzzInput}), the only exception allowed out is {@link ValidationException};
 * a {@link StackOverflowError}, any other exception, a hang or a broken property below fails the test.
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn test}) each method runs once per input stored in
 * {@code src/test/resources/dev/lacuna/expr/ExprFuzzTestInputs/<method name>/}: hand-written seeds (valid
 * expressions with their placeholders, and edge cases) and the findings of fuzzing sessions, kept as regression
 * tests (renamed {@code finding-*}). To fuzz one method (one per run):
 * <pre>JAZZER_FUZZ=1 mvn -pl engine-core test -Dtest='ExprFuzzTest#condition'</pre>
 *
 * <p>Properties, beyond "only ValidationException":
 * <ul>
 *   <li>condition: evaluating never throws; where {@code NOT (e)} also parses, it is the negation of {@code e};</li>
 *   <li>update: applying it (to no item, a fixed item, an item built from the placeholders) throws nothing but
 *       ValidationException, leaves its input unchanged, and changes only {@link UpdateExpression#touchedAttributes};</li>
 *   <li>projection: the result holds only projected top-level attributes, and at every projected path without
 *       list indexes holds exactly the item's value;</li>
 *   <li>key condition: one or two terms, on distinct attributes; resolving against a key schema throws nothing
 *       but ValidationException and gives an equality on the partition key.</li>
 * </ul>
 */
class ExprFuzzTest {
    /** Jazzer fuzzes when JAZZER_FUZZ is set to anything (its own test); otherwise it replays the stored inputs. */
    private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();
    private static final Duration REGRESSION_TIMEOUT = Duration.ofSeconds(30);

    @FuzzTest(maxDuration = "2m")
    void condition(byte[] input) throws Throwable {
        FuzzInput in = FuzzInput.decode(input);
        withHangGuard(() -> {
            ConditionExpression condition = parse(() -> ConditionExpression.parseCondition(in.expression(), in.placeholders()));
            if (condition == null) {
                return;
            }
            ConditionExpression negated = parse(() ->
                    ConditionExpression.parseFilter("NOT (" + in.expression() + ")", in.placeholders()));
            for (Map<String, AttributeValue> item : in.items()) {
                boolean holds = condition.test(item);
                if (negated != null) {
                    assertThat(negated.test(item)).as("NOT (%s) on %s", in.expression(), item).isEqualTo(!holds);
                }
            }
            condition.attributeNames();
        });
    }

    @FuzzTest(maxDuration = "2m")
    void update(byte[] input) throws Throwable {
        FuzzInput in = FuzzInput.decode(input);
        withHangGuard(() -> {
            UpdateExpression update = parse(() -> UpdateExpression.parse(in.expression(), in.placeholders()));
            if (update == null) {
                return;
            }
            Set<String> touched = update.touchedAttributes();
            for (Map<String, AttributeValue> item : in.items()) {
                Map<String, AttributeValue> before = new HashMap<>(item);
                Map<String, AttributeValue> after;
                try {
                    after = update.apply(item);
                } catch (ValidationException e) {
                    continue;
                }
                assertThat(item).isEqualTo(before);
                for (String name : union(before.keySet(), after.keySet())) {
                    if (!Objects.equals(before.get(name), after.get(name))) {
                        assertThat(touched).as("%s changed %s", in.expression(), name).contains(name);
                    }
                }
            }
        });
    }

    @FuzzTest(maxDuration = "2m")
    void projection(byte[] input) throws Throwable {
        FuzzInput in = FuzzInput.decode(input);
        withHangGuard(() -> {
            ProjectionExpression projection = parse(() -> ProjectionExpression.parse(in.expression(), in.placeholders()));
            if (projection == null) {
                return;
            }
            for (Map<String, AttributeValue> item : in.items()) {
                Map<String, AttributeValue> projected = projection.project(item);
                assertThat(projection.attributeNames()).containsAll(projected.keySet());
                for (Path path : projection.ast().paths()) {
                    if (path.elements().stream().noneMatch(e -> e instanceof Index)) {
                        assertThat(Values.get(projected, path)).as("%s at %s", in.expression(), path)
                                .isEqualTo(Values.get(item, path));
                    }
                }
            }
        });
    }

    @FuzzTest(maxDuration = "2m")
    void keyCondition(byte[] input) throws Throwable {
        FuzzInput in = FuzzInput.decode(input);
        withHangGuard(() -> {
            KeyConditionExpression key = parse(() -> KeyConditionExpression.parse(in.expression(), in.placeholders()));
            if (key == null) {
                return;
            }
            List<KeyTerm> terms = key.terms();
            assertThat(terms).hasSizeBetween(1, 2);
            if (terms.size() == 2) {
                assertThat(terms.get(0).attribute()).isNotEqualTo(terms.get(1).attribute());
            }
            String first = terms.get(0).attribute();
            String second = terms.size() == 2 ? terms.get(1).attribute() : null;
            for (String[] schema : new String[][] {{first, second}, {first, null}, {second, first}, {"pk", "sk"}}) {
                if (schema[0] == null) {
                    continue;
                }
                try {
                    KeyConditionExpression.KeyRange range = key.resolve(schema[0], schema[1]);
                    assertThat(range.partitionKey()).isEqualTo(schema[0]);
                    range.sortKeyCondition().ifPresent(t -> {
                        for (Map<String, AttributeValue> item : in.items()) {
                            item.values().forEach(t::matches);
                        }
                    });
                } catch (ValidationException e) {
                    // a key condition that does not fit this schema
                }
            }
        });
    }

    /** The parsed expression, or null if it was rejected with a ValidationException (the only allowed failure). */
    private static <T> T parse(ThrowingSupplier<T> parser) {
        try {
            return parser.get();
        } catch (ValidationException e) {
            assertThat(e.getMessage()).isNotBlank();
            return null;
        }
    }

    private interface ThrowingSupplier<T> {
        T get();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * Runs {@code check} under a preemptive timeout when replaying inputs, so a hang fails the build instead of
     * blocking it; not while fuzzing, where libFuzzer's per-input timeout applies (see WalReaderFuzzTest).
     */
    private static void withHangGuard(Executable check) throws Throwable {
        if (FUZZING) {
            check.execute();
        } else {
            assertTimeoutPreemptively(REGRESSION_TIMEOUT, check);
        }
    }
}
