import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Java's own HTTP client against `httpmock serve` (SPEC §22): its first request on a connection
 * offers an upgrade to HTTP/2 (`Connection: Upgrade, HTTP2-Settings`, `Upgrade: h2c`); the server
 * declines it and answers in HTTP/1.1, and the next requests on the same kept-alive connection
 * are answered too (they hung when the offer stopped the server's request decoder).
 *
 * <p>Plain JDK 17, no dependencies: {@code java Tests/Java/HttpClientKeepAliveCheck.java
 * http://127.0.0.1:PORT}. Exits 0 when every request is answered, 1 on a timeout or a wrong
 * answer.
 */
public class HttpClientKeepAliveCheck {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java HttpClientKeepAliveCheck.java http://127.0.0.1:PORT");
            System.exit(2);
        }
        String base = args[0].replaceAll("/+$", "");
        // HTTP/2 preferred (the default): over http:// that is the h2c upgrade offer.
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        int answered = 0;
        try {
            for (int index = 0; index < 6; index++) {
                HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + "/java-keep-alive/" + index))
                        .timeout(Duration.ofSeconds(20));
                if (index == 3) {
                    builder.POST(HttpRequest.BodyPublishers.ofString("{\"index\": 3}")).header("Content-Type", "application/json");
                } else {
                    builder.GET();
                }
                HttpResponse<String> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
                if (response.version() != HttpClient.Version.HTTP_1_1) {
                    System.err.println("request " + index + " was answered over " + response.version() + ", expected HTTP/1.1");
                    System.exit(1);
                }
                if (response.statusCode() < 200 || response.statusCode() > 599) {
                    System.err.println("request " + index + ": status " + response.statusCode());
                    System.exit(1);
                }
                answered++;
            }
        } catch (HttpTimeoutException timeout) {
            System.err.println("request " + answered + " on the kept-alive connection timed out: " + timeout.getMessage());
            System.exit(1);
        }
        System.out.println("HttpClientKeepAliveCheck: " + answered + " requests answered over HTTP/1.1 on one client");
    }
}
