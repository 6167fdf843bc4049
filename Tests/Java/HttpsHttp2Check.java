import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * java.net.http.HttpClient over HTTP/2 against `httpmock serve --https-port` (issue 44 item 2),
 * trusting httpmock's CA through a trust store made with `keytool -importcert`, passed as
 * -Djavax.net.ssl.trustStore (Docs/HTTPMock.docc/Server.md, "HTTPS"). args[0]: the plain base
 * URL; -Dhttpmock.https: the https base URL (the check is skipped without it: WireMock's own
 * jar, --reference, serves a certificate of its own).
 */
public class HttpsHttp2Check {
    public static void main(String[] args) throws Exception {
        String https = System.getProperty("httpmock.https");
        if (https == null || https.isEmpty()) {
            System.out.println("HttpsHttp2Check: skipped (no -Dhttpmock.https)");
            return;
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
        String mapping = "{\"request\":{\"method\":\"GET\",\"url\":\"/java-h2\"},\"response\":{\"status\":200,\"body\":\"over h2\"}}";
        HttpResponse<String> created = client.send(
            HttpRequest.newBuilder(URI.create(https + "/__admin/mappings"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(mapping)).build(),
            HttpResponse.BodyHandlers.ofString());
        check(created.statusCode() == 201, "POST /__admin/mappings over https: " + created.statusCode() + " " + created.body());
        check(created.version() == HttpClient.Version.HTTP_2, "the admin POST went over " + created.version());
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> answer = client.send(
                HttpRequest.newBuilder(URI.create(https + "/java-h2")).GET().build(), HttpResponse.BodyHandlers.ofString());
            check(answer.statusCode() == 200 && answer.body().equals("over h2"), "GET /java-h2: " + answer.statusCode() + " " + answer.body());
            check(answer.version() == HttpClient.Version.HTTP_2, "GET /java-h2 went over " + answer.version());
        }
        System.out.println("HttpsHttp2Check: 4 exchanges over HTTP/2 with TLS, trusted through keytool's trust store");
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            System.err.println("HttpsHttp2Check failed: " + message);
            System.exit(1);
        }
    }
}
