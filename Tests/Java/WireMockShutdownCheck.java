import com.github.tomakehurst.wiremock.client.WireMock;
import java.net.HttpURLConnection;
import java.net.URL;

/**
 * WireMock's Java client's instance {@code shutdown()} (the static {@code shutdownServer()} is
 * WireMockClientCheck's last step): the server answers it, then stops answering. Usage as every
 * check: {@code java -cp JAR:. WireMockShutdownCheck http://127.0.0.1:PORT ROOT}.
 */
public final class WireMockShutdownCheck {
    public static void main(String[] args) throws Exception {
        URL url = new URL(args[0]);
        WireMock wm = new WireMock(url.getHost(), url.getPort());
        if (!wm.allStubMappings().getMappings().isEmpty()) throw new AssertionError("a fresh server has no mappings");
        wm.shutdown();
        for (int attempt = 0; attempt < 300; attempt++) {
            Thread.sleep(100);
            try {
                HttpURLConnection connection = (HttpURLConnection) new URL(args[0] + "/__admin/mappings").openConnection();
                connection.setConnectTimeout(2_000);
                connection.setReadTimeout(5_000);
                connection.getResponseCode();
            } catch (java.io.IOException gone) {
                System.out.println("ok   shutdown (the server stopped)");
                return;
            }
        }
        System.out.println("FAIL shutdown: the server still answers after 30 s");
        System.exit(1);
    }
}
