package dev.lacuna.dynamodb;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.protocol.MarshallLocation;
import software.amazon.awssdk.core.protocol.MarshallingType;
import software.amazon.awssdk.core.traits.ListTrait;
import software.amazon.awssdk.core.traits.MapTrait;
import software.amazon.awssdk.core.util.SdkAutoConstructList;
import software.amazon.awssdk.core.util.SdkAutoConstructMap;
import software.amazon.awssdk.utils.builder.SdkBuilder;

/**
 * DynamoDB's JSON (the {@code awsJson1_0} protocol) to and from the SDK's model objects, for every operation at once:
 * each SDK model class and its builder describe their members ({@link SdkPojo#sdkFields()}: the JSON name, the
 * type, the element type of a list or map, the builder of a nested structure), and this reads and writes by that
 * description with Jackson's streaming parser and generator. Timestamps are epoch seconds, binaries base64, as the
 * protocol has them. Members a model does not know are skipped, as DynamoDB does.
 *
 * <p>The member metadata is the SDK's protected API ({@code software.amazon.awssdk.core}), stable within the SDK
 * version the build pins; it is what the SDK's own marshallers are generated against.
 */
final class SdkJson {
    private final JsonFactory factory;
    private final Map<Class<?>, Map<String, SdkField<?>>> fieldsByClass = new ConcurrentHashMap<>();

    SdkJson() {
        // DynamoDB nests documents at most 32 levels deep; a little room on top for the request's own structure.
        this.factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build();
    }

    /** The request or other model object {@code builder} builds, read from {@code json}. */
    Object read(byte[] json, SdkPojo builder) {
        try (JsonParser p = factory.createParser(json)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                // An empty body stands for an empty request, as DynamoDB takes it.
                return ((SdkBuilder<?, ?>) builder).build();
            }
            if (t != JsonToken.START_OBJECT) {
                throw WireException.serialization("Start of structure or map expected, found " + t);
            }
            Object result = readStructure(p, builder, "");
            if (p.nextToken() != null) {
                throw WireException.serialization("Unexpected content after the request's JSON object");
            }
            return result;
        } catch (JsonProcessingException e) {
            throw WireException.serialization(e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Object readStructure(JsonParser p, SdkPojo builder, String prefix) throws IOException {
        Map<String, SdkField<?>> fields = fields(builder);
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            SdkField<?> field = fields.get(p.currentName());
            p.nextToken();
            if (field == null) {
                p.skipChildren();
                continue;
            }
            field.set(builder, readValue(p, field, prefix + field.locationName()));
        }
        if (t != JsonToken.END_OBJECT) {
            throw WireException.serialization("Unexpected " + t + " in a structure");
        }
        return ((SdkBuilder<?, ?>) builder).build();
    }

    private Object readValue(JsonParser p, SdkField<?> field, String where) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        MarshallingType<?> type = field.marshallingType();
        if (type == MarshallingType.STRING) {
            expect(t == JsonToken.VALUE_STRING, where, "a string", t);
            return p.getText();
        }
        if (type == MarshallingType.INTEGER) {
            expect(t == JsonToken.VALUE_NUMBER_INT, where, "an integer", t);
            return p.getIntValue();
        }
        if (type == MarshallingType.LONG) {
            expect(t == JsonToken.VALUE_NUMBER_INT, where, "an integer", t);
            return p.getLongValue();
        }
        if (type == MarshallingType.DOUBLE) {
            expect(t.isNumeric(), where, "a number", t);
            return p.getDoubleValue();
        }
        if (type == MarshallingType.BOOLEAN) {
            expect(t.isBoolean(), where, "a boolean", t);
            return p.getBooleanValue();
        }
        if (type == MarshallingType.SDK_BYTES) {
            expect(t == JsonToken.VALUE_STRING, where, "a base64 string", t);
            try {
                return SdkBytes.fromByteArrayUnsafe(Base64.getDecoder().decode(p.getText()));
            } catch (IllegalArgumentException e) {
                throw WireException.serialization("Base64 encoded length is expected a multiple of 4 bytes but found: "
                        + p.getText().length());
            }
        }
        if (type == MarshallingType.INSTANT) {
            expect(t.isNumeric(), where, "a timestamp in epoch seconds", t);
            BigDecimal seconds = p.getDecimalValue();
            return Instant.ofEpochMilli(seconds.movePointRight(3).longValue());
        }
        if (type == MarshallingType.SDK_POJO) {
            expect(t == JsonToken.START_OBJECT, where, "a structure", t);
            return readStructure(p, field.constructor().get(), where + ".");
        }
        if (type == MarshallingType.LIST) {
            expect(t == JsonToken.START_ARRAY, where, "a list", t);
            SdkField<?> member = field.getTrait(ListTrait.class).memberFieldInfo();
            List<Object> list = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                Object v = readValue(p, member, where + "[" + list.size() + "]");
                if (v == null) {
                    throw WireException.serialization("Null value in the list " + where);
                }
                list.add(v);
            }
            return list;
        }
        if (type == MarshallingType.MAP) {
            expect(t == JsonToken.START_OBJECT, where, "a map", t);
            SdkField<?> value = field.getTrait(MapTrait.class).valueFieldInfo();
            Map<String, Object> map = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                Object v = readValue(p, value, where + "." + key);
                if (v == null) {
                    throw WireException.serialization("Null value in the map " + where);
                }
                map.put(key, v);
            }
            return map;
        }
        throw WireException.serialization("Unsupported member type " + type + " of " + where);
    }

    private static void expect(boolean ok, String where, String what, JsonToken found) {
        if (!ok) {
            throw WireException.serialization("Unexpected " + describe(found) + " for " + where + ", expected " + what);
        }
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_OBJECT -> "start of structure or map";
            case START_ARRAY -> "start of list";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            default -> String.valueOf(t);
        };
    }

    private Map<String, SdkField<?>> fields(SdkPojo pojo) {
        return fieldsByClass.computeIfAbsent(pojo.getClass(), c -> {
            Map<String, SdkField<?>> byName = new HashMap<>();
            for (SdkField<?> f : pojo.sdkFields()) {
                if (f.location() == MarshallLocation.PAYLOAD) {
                    byName.put(f.locationName(), f);
                }
            }
            return byName;
        });
    }

    /** {@code pojo} (a response, or a structure of one) as JSON. */
    byte[] write(SdkPojo pojo) {
        return write(g -> writeStructure(g, pojo));
    }

    /** JSON written by {@code body}, into a byte array. */
    byte[] write(Writer body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = factory.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Writes JSON onto a generator. */
    interface Writer {
        /** Writes. */
        void write(JsonGenerator g) throws IOException;
    }

    /** Writes {@code pojo}'s members as a JSON object. */
    void writeStructure(JsonGenerator g, SdkPojo pojo) throws IOException {
        g.writeStartObject();
        writeMembers(g, pojo);
        g.writeEndObject();
    }

    /** Writes {@code pojo}'s members, without the braces (an error adds its own beside them). */
    void writeMembers(JsonGenerator g, SdkPojo pojo) throws IOException {
        for (SdkField<?> f : pojo.sdkFields()) {
            if (f.location() != MarshallLocation.PAYLOAD) {
                continue;
            }
            Object v = f.getValueOrDefault(pojo);
            if (absent(v)) {
                continue;
            }
            g.writeFieldName(f.locationName());
            writeValue(g, f, v);
        }
    }

    private static boolean absent(Object v) {
        return v == null || v instanceof SdkAutoConstructList || v instanceof SdkAutoConstructMap;
    }

    private void writeValue(JsonGenerator g, SdkField<?> field, Object v) throws IOException {
        MarshallingType<?> type = field.marshallingType();
        if (type == MarshallingType.STRING) {
            g.writeString(v.toString());
        } else if (type == MarshallingType.INTEGER) {
            g.writeNumber((Integer) v);
        } else if (type == MarshallingType.LONG) {
            g.writeNumber((Long) v);
        } else if (type == MarshallingType.DOUBLE) {
            g.writeNumber((Double) v);
        } else if (type == MarshallingType.BOOLEAN) {
            g.writeBoolean((Boolean) v);
        } else if (type == MarshallingType.SDK_BYTES) {
            g.writeString(Base64.getEncoder().encodeToString(((SdkBytes) v).asByteArrayUnsafe()));
        } else if (type == MarshallingType.INSTANT) {
            g.writeNumber(BigDecimal.valueOf(((Instant) v).toEpochMilli(), 3));
        } else if (type == MarshallingType.SDK_POJO) {
            writeStructure(g, (SdkPojo) v);
        } else if (type == MarshallingType.LIST) {
            SdkField<?> member = field.getTrait(ListTrait.class).memberFieldInfo();
            g.writeStartArray();
            for (Object e : (List<?>) v) {
                writeValue(g, member, e);
            }
            g.writeEndArray();
        } else if (type == MarshallingType.MAP) {
            SdkField<?> value = field.getTrait(MapTrait.class).valueFieldInfo();
            g.writeStartObject();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                g.writeFieldName(e.getKey().toString());
                writeValue(g, value, e.getValue());
            }
            g.writeEndObject();
        } else {
            throw new IllegalStateException("no JSON form for member type " + type + " of " + field.locationName());
        }
    }

    /** A builder supplier typed as the SDK's model builders are: each is an {@link SdkPojo}. */
    @SuppressWarnings("unchecked")
    static Supplier<SdkPojo> pojo(Supplier<?> builder) {
        return () -> (SdkPojo) builder.get();
    }
}
