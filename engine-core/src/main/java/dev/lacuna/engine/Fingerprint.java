package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionCheck;
import dev.lacuna.DeleteItem;
import dev.lacuna.ExpressionRequest;
import dev.lacuna.PutItem;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.WriteOp;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A canonical text of a transaction request, for its idempotency token: equal requests give equal text
 * whatever order their maps and sets were built in (DynamoDB requests are JSON, where order means nothing).
 */
final class Fingerprint {
    private Fingerprint() {
    }

    static String of(List<TransactWrite> items) {
        StringBuilder out = new StringBuilder();
        for (TransactWrite w : items) {
            out.append(w.table()).append('|');
            WriteOp op = w.op();
            if (op instanceof PutItem p) {
                out.append("put ").append(attributes(p.item().attributes()));
            } else if (op instanceof UpdateItem u) {
                out.append("update ").append(attributes(u.key().attributes())).append(' ').append(u.update());
            } else if (op instanceof DeleteItem d) {
                out.append("delete ").append(attributes(d.key().attributes()));
            } else {
                out.append("check ").append(attributes(((ConditionCheck) op).key().attributes()));
            }
            ExpressionRequest<?> r = (ExpressionRequest<?>) op;
            out.append(" if ").append(op.condition()).append(" names ").append(new TreeMap<>(r.names()))
                    .append(" values ").append(attributes(r.values())).append(" old ").append(op.returnItemOnConditionFailure())
                    .append('\n');
        }
        return out.toString();
    }

    private static String attributes(Map<String, AttributeValue> map) {
        StringBuilder out = new StringBuilder("{");
        new TreeMap<>(map).forEach((k, v) -> out.append(k).append('=').append(value(v)).append(','));
        return out.append('}').toString();
    }

    private static String value(AttributeValue v) {
        if (v instanceof AttributeValue.M m) {
            return "M" + attributes(m.values());
        }
        if (v instanceof AttributeValue.L l) {
            List<String> parts = new ArrayList<>();
            l.values().forEach(e -> parts.add(value(e)));
            return "L" + parts;
        }
        if (v instanceof AttributeValue.SS ss) {
            return "SS" + ss.values().stream().sorted().toList();
        }
        if (v instanceof AttributeValue.NS ns) {
            return "NS" + ns.values().stream().sorted().map(d -> d.toPlainString()).toList();
        }
        if (v instanceof AttributeValue.BS bs) {
            return "BS" + bs.values().stream().map(b -> {
                byte[] copy = new byte[b.remaining()];
                b.duplicate().get(copy);
                return Base64.getEncoder().encodeToString(copy);
            }).sorted().toList();
        }
        if (v instanceof AttributeValue.B b) {
            return "B" + Base64.getEncoder().encodeToString(b.value());
        }
        return v.type() + ":" + v;
    }
}
