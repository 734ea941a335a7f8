package dev.lacuna.dynamodb;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies AWS Signature Version 4 on a request, as DynamoDB does, with the JDK's HMAC-SHA256 and SHA-256: the
 * {@code Authorization} header's (or a presigned request's query string's) credential (access key, date, region,
 * service) and signed headers, the session token of temporary credentials, the request's time against the clock
 * (within the allowed skew, or a presigned request's {@code X-Amz-Expires}), and the signature over the canonical
 * request. Refusals carry DynamoDB's errors: {@code MissingAuthenticationTokenException} without an
 * {@code Authorization} header or query signature, {@code UnrecognizedClientException} for an unknown access key or a
 * wrong or missing session token, {@code IncompleteSignatureException} for a malformed header or query,
 * {@code InvalidSignatureException} for a wrong signature or a time outside the skew ("Signature expired:
 * ..."). Any region is accepted; the service must be {@code dynamodb}.
 *
 * <p>The algorithm (AWS's "Create a signed AWS API request"): canonical request = method, canonical URI, canonical
 * query string, canonical headers, signed headers, hex SHA-256 of the payload, one per line; string to sign =
 * {@code AWS4-HMAC-SHA256}, the request time, the credential scope and the hex SHA-256 of the canonical request; the
 * signing key is HMAC-SHA256 chained over {@code "AWS4" + secret}, the date, the region, the service and
 * {@code aws4_request}. Thread-safe.
 */
final class SigV4 {
    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final String MISMATCH = "The request signature we calculated does not match the signature you"
            + " provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for"
            + " details.";

    /** The longest a presigned request may say it is valid: 7 days, as SigV4's {@code X-Amz-Expires} allows. */
    static final long MAX_EXPIRES_SECONDS = 604_800;

    private final Map<String, String> secrets;
    private final Map<String, String> sessionTokens;
    private final Clock clock;
    private final Duration skew;

    SigV4(Map<String, String> secrets, Map<String, String> sessionTokens, Clock clock, Duration skew) {
        this.secrets = Map.copyOf(secrets);
        this.sessionTokens = Map.copyOf(sessionTokens);
        this.clock = clock;
        this.skew = skew;
    }

    /** What a request says of its signature, from its Authorization header or its query string (presigned). */
    private record Claim(String credential, String signedHeaders, String signature, String amzDate, String token,
                         Long expiresSeconds, boolean presigned) {
    }

    /**
     * Checks the request's signature: in its {@code Authorization} header, or, for a presigned request, in its query
     * string ({@code X-Amz-Algorithm}, {@code X-Amz-Credential}, {@code X-Amz-Date}, {@code X-Amz-Expires},
     * {@code X-Amz-SignedHeaders}, {@code X-Amz-Signature}, and {@code X-Amz-Security-Token} for temporary
     * credentials). A presigned request is valid from its date (less the allowed skew) for its {@code X-Amz-Expires}
     * seconds.
     *
     * @param headers the values of a header by its name (any case), or null if it is absent
     * @throws WireException with DynamoDB's error if it fails
     */
    void verify(String method, String rawPath, String rawQuery, Function<String, List<String>> headers, byte[] body) {
        String authorization = first(headers, "authorization");
        Map<String, String> query = queryParameters(rawQuery);
        Claim claim;
        if (authorization != null) {
            claim = fromHeader(authorization, headers);
        } else if (query.containsKey("X-Amz-Algorithm")) {
            claim = fromQuery(query);
        } else {
            throw WireException.missingToken();
        }
        String[] scope = claim.credential().split("/");
        if (scope.length != 5 || !"aws4_request".equals(scope[4])) {
            throw WireException.incompleteSignature("Credential must have exactly 5 slash-delimited elements, e.g."
                    + " keyid/date/region/service/term, got '" + claim.credential() + "'");
        }
        String secret = secrets.get(scope[0]);
        // A temporary key's token must come with it, and a token only with a temporary key (DynamoDB checks the
        // token before the signature: a wrong one is "invalid", whatever the signature).
        if (secret == null || !java.util.Objects.equals(sessionTokens.get(scope[0]), claim.token())) {
            throw WireException.unrecognizedClient();
        }
        if (!"dynamodb".equals(scope[3])) {
            throw WireException.invalidSignature("Credential should be scoped to correct service: 'dynamodb'. ");
        }
        Instant signedAt = signedAt(claim.amzDate(), claim.presigned() ? null : first(headers, "date"));
        String requestTime = AMZ_DATE.format(signedAt);
        if (claim.presigned()) {
            checkPresignedWindow(signedAt, claim.expiresSeconds());
        } else {
            checkSkew(signedAt);
        }
        if (!requestTime.startsWith(scope[1])) {
            throw WireException.invalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601"
                    + " version of date from HTTP: '" + scope[1] + "' != '" + requestTime.substring(0, 8)
                    + "', from '" + requestTime + "'.");
        }
        List<String> signed = List.of(claim.signedHeaders().split(";"));
        if (!signed.contains("host")) {
            throw WireException.invalidSignature("'Host' or ':authority' must be a 'SignedHeader' in the AWS"
                    + " Authorization.");
        }
        String payloadHash = first(headers, "x-amz-content-sha256");
        if (!"UNSIGNED-PAYLOAD".equals(payloadHash)) {
            payloadHash = hex(sha256(body));
        }
        StringBuilder canonical = new StringBuilder();
        canonical.append(method).append('\n').append(canonicalUri(rawPath)).append('\n')
                .append(canonicalQuery(rawQuery, claim.presigned() ? "X-Amz-Signature" : null)).append('\n');
        for (String name : signed) {
            List<String> values = headers.apply(name);
            List<String> trimmed = new ArrayList<>();
            if (values != null) {
                for (String v : values) {
                    trimmed.add(v.trim().replaceAll("\\s+", " "));
                }
            }
            canonical.append(name).append(':').append(String.join(",", trimmed)).append('\n');
        }
        canonical.append('\n').append(claim.signedHeaders()).append('\n').append(payloadHash);
        String credentialScope = scope[1] + "/" + scope[2] + "/" + scope[3] + "/" + scope[4];
        String stringToSign = ALGORITHM + "\n" + (claim.amzDate() != null ? claim.amzDate() : requestTime) + "\n"
                + credentialScope + "\n" + hex(sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)));
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), scope[1]);
        key = hmac(key, scope[2]);
        key = hmac(key, scope[3]);
        key = hmac(key, "aws4_request");
        byte[] expected = hex(hmac(key, stringToSign)).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, claim.signature().toLowerCase(Locale.ROOT)
                .getBytes(StandardCharsets.US_ASCII))) {
            throw WireException.invalidSignature(MISMATCH);
        }
    }

    private static Claim fromHeader(String authorization, Function<String, List<String>> headers) {
        if (!authorization.startsWith(ALGORITHM + " ")) {
            throw WireException.incompleteSignature("Authorization header requires '" + ALGORITHM + "' algorithm: "
                    + authorization.split(" ", 2)[0]);
        }
        String credential = null;
        String signedHeaders = null;
        String signature = null;
        for (String part : authorization.substring(ALGORITHM.length() + 1).split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String value = p.substring(eq + 1).trim();
            switch (p.substring(0, eq).trim()) {
                case "Credential" -> credential = value;
                case "SignedHeaders" -> signedHeaders = value;
                case "Signature" -> signature = value;
                default -> { }
            }
        }
        List<String> missing = new ArrayList<>();
        if (credential == null) {
            missing.add("Authorization header requires 'Credential' parameter.");
        }
        if (signature == null) {
            missing.add("Authorization header requires 'Signature' parameter.");
        }
        if (signedHeaders == null) {
            missing.add("Authorization header requires 'SignedHeaders' parameter.");
        }
        if (!missing.isEmpty()) {
            throw WireException.incompleteSignature(String.join(" ", missing) + " Authorization=" + authorization);
        }
        return new Claim(credential, signedHeaders, signature, first(headers, "x-amz-date"),
                first(headers, "x-amz-security-token"), null, false);
    }

    private static Claim fromQuery(Map<String, String> query) {
        String algorithm = query.get("X-Amz-Algorithm");
        if (!ALGORITHM.equals(algorithm)) {
            throw WireException.incompleteSignature("X-Amz-Algorithm only supports '" + ALGORITHM + "': " + algorithm);
        }
        List<String> missing = new ArrayList<>();
        for (String name : List.of("X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date",
                "X-Amz-Expires")) {
            if (query.get(name) == null) {
                missing.add("AWS query-string parameters must include '" + name + "'.");
            }
        }
        if (!missing.isEmpty()) {
            throw WireException.incompleteSignature(String.join(" ", missing) + " Re-examine the query-string"
                    + " parameters.");
        }
        long expires;
        try {
            expires = Long.parseLong(query.get("X-Amz-Expires"));
        } catch (NumberFormatException e) {
            expires = -1;
        }
        if (expires < 1 || expires > MAX_EXPIRES_SECONDS) {
            throw WireException.incompleteSignature("X-Amz-Expires must be 1 to " + MAX_EXPIRES_SECONDS
                    + " seconds: " + query.get("X-Amz-Expires"));
        }
        return new Claim(query.get("X-Amz-Credential"), query.get("X-Amz-SignedHeaders"),
                query.get("X-Amz-Signature"), query.get("X-Amz-Date"), query.get("X-Amz-Security-Token"), expires,
                true);
    }

    /** The query string's parameters, decoded (the first value of a repeated name). */
    private static Map<String, String> queryParameters(String rawQuery) {
        Map<String, String> out = new java.util.HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            out.putIfAbsent(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** A presigned request is valid from its signing time (less the skew) until {@code expires} seconds after it. */
    private void checkPresignedWindow(Instant signedAt, long expires) {
        Instant now = clock.instant();
        if (now.isAfter(signedAt.plusSeconds(expires))) {
            throw WireException.invalidSignature("Signature expired: " + AMZ_DATE.format(signedAt.plusSeconds(expires))
                    + " is now earlier than " + AMZ_DATE.format(now) + " (" + AMZ_DATE.format(signedAt) + " + "
                    + expires + " sec.)");
        }
        if (signedAt.isAfter(now.plus(skew))) {
            throw WireException.invalidSignature("Signature not yet current: " + AMZ_DATE.format(signedAt) + " is"
                    + " still later than " + AMZ_DATE.format(now.plus(skew)) + " (" + AMZ_DATE.format(now) + " + "
                    + skew.toMinutes() + " min.)");
        }
    }

    private Instant signedAt(String amzDate, String date) {
        try {
            if (amzDate != null) {
                return Instant.from(AMZ_DATE.parse(amzDate));
            }
            if (date != null) {
                return ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            }
        } catch (DateTimeParseException e) {
            throw WireException.incompleteSignature("Date must be in ISO-8601 'basic format'. Got '"
                    + (amzDate != null ? amzDate : date) + "'. See http://en.wikipedia.org/wiki/ISO_8601");
        }
        throw WireException.incompleteSignature("Authorization header requires existence of either a 'X-Amz-Date' or"
                + " a 'Date' header.");
    }

    private void checkSkew(Instant signedAt) {
        Instant now = clock.instant();
        long minutes = skew.toMinutes();
        if (signedAt.isBefore(now.minus(skew))) {
            throw WireException.invalidSignature("Signature expired: " + AMZ_DATE.format(signedAt) + " is now earlier"
                    + " than " + AMZ_DATE.format(now.minus(skew)) + " (" + AMZ_DATE.format(now) + " - " + minutes
                    + " min.)");
        }
        if (signedAt.isAfter(now.plus(skew))) {
            throw WireException.invalidSignature("Signature not yet current: " + AMZ_DATE.format(signedAt) + " is"
                    + " still later than " + AMZ_DATE.format(now.plus(skew)) + " (" + AMZ_DATE.format(now) + " + "
                    + minutes + " min.)");
        }
    }

    private static String first(Function<String, List<String>> headers, String name) {
        List<String> values = headers.apply(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The path with each segment encoded once more, as SigV4 asks of every service but S3. */
    static String canonicalUri(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            sb.append(c == '/' ? "/" : encode(String.valueOf(c)));
        }
        return sb.toString();
    }

    /** Parameters sorted by name, then value, each name and value encoded as SigV4 asks. */
    static String canonicalQuery(String rawQuery) {
        return canonicalQuery(rawQuery, null);
    }

    /** As {@link #canonicalQuery(String)}, leaving out parameter {@code except} (a presigned request's signature). */
    static String canonicalQuery(String rawQuery, String except) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> params = new ArrayList<>();
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (name.equals(except)) {
                continue;
            }
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.add(new String[] {encode(name), encode(value)});
        }
        params.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        List<String> parts = new ArrayList<>();
        for (String[] p : params) {
            parts.add(p[0] + "=" + p[1]);
        }
        return String.join("&", parts);
    }

    /** RFC 3986 encoding: everything but unreserved characters, as %XY in upper case. */
    static String encode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~') {
                sb.append(c);
            } else {
                sb.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
            }
        }
        return sb.toString();
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
