package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.Database;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * boto3 and the AWS CLI (botocore's own JSON protocol and SigV4 signer, with a session token) against the endpoint,
 * as {@code lacuna serve} runs it: {@code src/test/scripts/boto3_smoke.py} exercises tables, items, conditions, an
 * index, batches, a cancelled transaction, DescribeTable's counts and the Streams API, asserting DynamoDB's answers.
 * Skipped, with the reason, where python3 with boto3 (or the {@code aws} command) is not installed.
 */
class Boto3SmokeTest {
    private static final Path SCRIPT = Path.of("src/test/scripts/boto3_smoke.py");
    private static final String KEY = "ASIALACUNABOTO";
    private static final String SECRET = "lacuna-boto-secret";
    private static final String TOKEN = "lacuna/boto+session=token";

    @Test
    void shouldPassTheBoto3SmokeRun() throws Exception {
        Assumptions.assumeTrue(succeeds(List.of("python3", "-c", "import boto3")),
                "python3 with boto3 is not installed (apt-get install python3-boto3): boto3 smoke run skipped");
        try (Database db = Target.memoryDatabase();
             DynamoDbEndpoint endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0)
                     .temporaryCredential(KEY, SECRET, TOKEN).build())) {
            Result r = run(List.of("python3", SCRIPT.toString(), endpoint.uri().toString()));
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains("boto3 smoke: OK");
            System.out.println(r.output().strip().lines().reduce((a, b) -> b).orElse("")); // the summary line
        }
    }

    @Test
    void shouldServeTheAwsCli() throws Exception {
        Assumptions.assumeTrue(succeeds(List.of("aws", "--version")),
                "the AWS CLI (aws) is not installed (apt-get install awscli): CLI run skipped");
        try (Database db = Target.memoryDatabase();
             DynamoDbEndpoint endpoint = DynamoDbEndpoint.start(db, EndpointOptions.builder().port(0)
                     .temporaryCredential(KEY, SECRET, TOKEN).build())) {
            String url = endpoint.uri().toString();
            Result created = run(List.of("aws", "dynamodb", "create-table", "--endpoint-url", url, "--table-name",
                    "Cli", "--attribute-definitions", "AttributeName=id,AttributeType=S", "--key-schema",
                    "AttributeName=id,KeyType=HASH", "--billing-mode", "PAY_PER_REQUEST"));
            assertThat(created.exit()).as(created.output()).isZero();
            Result put = run(List.of("aws", "dynamodb", "put-item", "--endpoint-url", url, "--table-name", "Cli",
                    "--item", "{\"id\":{\"S\":\"a\"}}"));
            assertThat(put.exit()).as(put.output()).isZero();
            Result got = run(List.of("aws", "dynamodb", "get-item", "--endpoint-url", url, "--table-name", "Cli",
                    "--key", "{\"id\":{\"S\":\"a\"}}", "--output", "json"));
            assertThat(got.exit()).as(got.output()).isZero();
            assertThat(got.output()).contains("\"id\"").contains("\"S\": \"a\"");
            Result missing = run(List.of("aws", "dynamodb", "describe-table", "--endpoint-url", url, "--table-name",
                    "NoSuchTable"));
            assertThat(missing.exit()).isNotZero();
            assertThat(missing.output()).contains("ResourceNotFoundException");
        }
    }

    private record Result(int exit, String output) {
    }

    /** Runs {@code command} with the endpoint's temporary credentials, for at most 3 minutes. */
    private static Result run(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("AWS_ACCESS_KEY_ID", KEY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", SECRET);
        pb.environment().put("AWS_SESSION_TOKEN", TOKEN);
        pb.environment().put("AWS_DEFAULT_REGION", "us-east-1");
        pb.environment().put("AWS_CONFIG_FILE", "/dev/null"); // the machine's own profiles play no part
        pb.environment().put("AWS_SHARED_CREDENTIALS_FILE", "/dev/null");
        pb.environment().put("AWS_RETRY_MODE", "standard");
        pb.environment().put("AWS_MAX_ATTEMPTS", "1"); // an error shows at once
        Path out = Files.createTempFile("lacuna-boto3", ".log");
        try {
            Process p = pb.redirectOutput(out.toFile()).start();
            if (!p.waitFor(3, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return new Result(-1, "timed out after 3 minutes: " + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static boolean succeeds(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
