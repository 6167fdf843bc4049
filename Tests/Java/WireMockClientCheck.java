import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static com.github.tomakehurst.wiremock.common.Metadata.metadata;

import com.github.tomakehurst.wiremock.client.VerificationException;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.admin.model.ServeEventQuery;
import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.global.GlobalSettings;
import com.github.tomakehurst.wiremock.http.UniformDistribution;
import com.github.tomakehurst.wiremock.recording.RecordingStatus;
import com.github.tomakehurst.wiremock.recording.SnapshotRecordResult;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.stubbing.StubImport;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.github.tomakehurst.wiremock.verification.NearMiss;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * WireMock's own Java client (2.35.1, from the standalone jar) driving a server through every
 * admin operation of {@code com.github.tomakehurst.wiremock.client.WireMock} (SPEC §22). The
 * client's JSON reader (Jackson) refuses any field WireMock does not have, so each call that
 * returns also checks the shape of the answer.
 *
 * <p>Usage: {@code java -cp JAR:. WireMockClientCheck http://127.0.0.1:PORT ROOT} where ROOT is
 * the server's root folder ({@code --wiremock-root} for httpmock, {@code --root-dir} for
 * WireMock). Prints one line per operation and exits 1 when any failed. Run against the real
 * WireMock jar too, as the reference (.ci/java-clients --reference).
 */
public final class WireMockClientCheck {
    interface Step {
        void run() throws Exception;
    }

    private static final List<String> failed = new ArrayList<>();
    private static int passed = 0;
    private static String base;
    /** Which server: {@code -Dwiremock.server=httpmock} (default) or {@code wiremock} (the reference jar). */
    private static final boolean httpmock = !"wiremock".equals(System.getProperty("wiremock.server", "httpmock"));

    static void check(String name, Step step) {
        try {
            step.run();
            passed++;
            System.out.println("ok   " + name);
        } catch (Throwable error) {
            failed.add(name);
            String text = String.valueOf(error).replace('\n', ' ');
            System.out.println("FAIL " + name + ": " + (text.length() > 600 ? text.substring(0, 600) + "…" : text));
        }
    }

    static void expect(boolean condition, String what) {
        if (!condition) throw new AssertionError(what);
    }

    static void equal(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected <" + expected + ">, got <" + actual + ">");
        }
    }

    /** The app's traffic: a plain HTTP/1.1 request; returns "STATUS BODY". */
    static String call(String method, String path, String body) throws Exception {
        HttpURLConnection connection = (HttpURLConnection) new URL(base + path).openConnection();
        connection.setRequestMethod(method);
        connection.setConnectTimeout(10_000);
        connection.setReadTimeout(20_000);
        if (body != null) {
            connection.setDoOutput(true);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
        }
        int status = connection.getResponseCode();
        InputStream stream = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        if (stream != null) {
            try (InputStream in = stream) {
                in.transferTo(bytes);
            }
        }
        return status + " " + bytes.toString(StandardCharsets.UTF_8);
    }

    static String fetch(String path) throws Exception {
        return call("GET", path, null);
    }

    static List<UUID> ids(List<StubMapping> mappings) {
        return mappings.stream().map(StubMapping::getId).collect(Collectors.toList());
    }

    /** An upstream server for recording: answers "upstream PATH" with X-Up: yes. */
    static HttpServer upstream() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] answer = ("upstream " + exchange.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain");
            exchange.getResponseHeaders().add("X-Up", "yes");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
        return server;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: WireMockClientCheck BASE_URL ROOT_DIR");
            System.exit(2);
        }
        base = args[0].replaceAll("/$", "");
        File root = new File(args[1]);
        URL url = new URL(base);
        configureFor(url.getHost(), url.getPort());
        WireMock wm = WireMock.create().host(url.getHost()).port(url.getPort()).build();

        final UUID hello = UUID.fromString("11111111-2222-4333-8444-555555555555");
        final UUID tagged = UUID.fromString("21111111-2222-4333-8444-555555555555");
        final UUID built = UUID.fromString("31111111-2222-4333-8444-555555555555");
        final StubMapping[] made = new StubMapping[1];

        check("resetToDefault (clean start)", () -> {
            resetToDefault();
            removeAllMappings();
            equal(0, listAllStubMappings().getMappings().size(), "mappings after removeAllMappings");
        });
        check("stubFor", () -> {
            StubMapping stub = stubFor(get(urlPathEqualTo("/hello")).withId(hello)
                .withMetadata(metadata().attr("tag", "greeting").attr("nested", metadata().attr("level", 2)))
                .willReturn(ok("hi").withHeader("X-Kind", "greeting")));
            equal(hello, stub.getId(), "returned id");
            equal("200 hi", fetch("/hello"), "GET /hello");
        });
        check("givenThat", () -> {
            givenThat(post(urlEqualTo("/items")).willReturn(aResponse().withStatus(201).withBody("made")));
            equal("201 made", call("POST", "/items", "{}"), "POST /items");
        });
        check("register(MappingBuilder) and register(StubMapping)", () -> {
            made[0] = wm.register(get(urlEqualTo("/made")).willReturn(ok("made")));
            expect(made[0].getId() != null, "register returns the stub with its id");
            wm.register(get(urlEqualTo("/registered")).willReturn(ok("registered")).build());
            equal("200 made", fetch("/made"), "GET /made");
            equal("200 registered", fetch("/registered"), "GET /registered");
        });
        check("listAllStubMappings / allStubMappings", () -> {
            List<UUID> listed = ids(listAllStubMappings().getMappings());
            equal(4, listed.size(), "mapping count");
            expect(listed.contains(hello), "lists " + hello);
            equal(4, wm.allStubMappings().getMappings().size(), "allStubMappings count");
        });
        check("getSingleStubMapping / getStubMapping", () -> {
            StubMapping stub = getSingleStubMapping(hello);
            equal("/hello", stub.getRequest().getUrlPath(), "urlPath");
            equal("greeting", stub.getMetadata().getString("tag"), "metadata.tag");
            equal(hello, wm.getStubMapping(hello).getItem().getId(), "getStubMapping id");
        });
        check("findStubsByMetadata / findAllStubsByMetadata", () -> {
            stubFor(get(urlEqualTo("/tagged")).withId(tagged).withMetadata(metadata().attr("tag", "temp"))
                .willReturn(ok("tagged")));
            List<StubMapping> found = findStubsByMetadata(matchingJsonPath("$.tag", equalTo("greeting")));
            equal(List.of(hello), ids(found), "stubs tagged greeting");
            equal(List.of(hello), ids(wm.findAllStubsByMetadata(matchingJsonPath("$.nested.level", equalTo("2")))),
                "stubs with nested.level 2");
        });
        check("editStub / editStubMapping", () -> {
            editStub(get(urlPathEqualTo("/hello")).withId(hello)
                .withMetadata(metadata().attr("tag", "greeting"))
                .willReturn(ok("hello again")));
            equal("200 hello again", fetch("/hello"), "GET /hello after edit");
            wm.editStubMapping(get(urlPathEqualTo("/hello")).withId(hello)
                .withMetadata(metadata().attr("tag", "greeting"))
                .willReturn(ok("hi")));
            equal("200 hi", fetch("/hello"), "GET /hello after the second edit");
            equal(5, listAllStubMappings().getMappings().size(), "edits replace, not add");
        });
        check("removeStub(MappingBuilder) (by request pattern)", () -> {
            removeStub(post(urlEqualTo("/items")));
            equal(404, Integer.parseInt(call("POST", "/items", "{}").split(" ")[0]), "POST /items after removal");
        });
        check("removeStub(StubMapping) (by id)", () -> {
            removeStub(made[0]);
            equal(404, Integer.parseInt(fetch("/made").split(" ")[0]), "GET /made after removal");
            wm.removeStubMapping(get(urlEqualTo("/registered")));
            equal(404, Integer.parseInt(fetch("/registered").split(" ")[0]), "GET /registered after removal");
            StubMapping temporary = stubFor(get(urlEqualTo("/temporary")).willReturn(ok("temporary")));
            wm.removeStubMapping(temporary);
            equal(404, Integer.parseInt(fetch("/temporary").split(" ")[0]), "GET /temporary after removal");
        });
        check("removeStubsByMetadata / removeStubsByMetadataPattern", () -> {
            removeStubsByMetadata(matchingJsonPath("$.tag", equalTo("temp")));
            equal(List.of(hello), ids(listAllStubMappings().getMappings()), "left after removing tag temp");
            stubFor(get(urlEqualTo("/tagged")).withId(tagged).withMetadata(metadata().attr("tag", "temp"))
                .willReturn(ok("tagged")));
            wm.removeStubsByMetadataPattern(matchingJsonPath("$.tag", equalTo("temp")));
            equal(List.of(hello), ids(listAllStubMappings().getMappings()), "left after the second removal");
        });
        check("importStubs (ignoreExisting, overwriteExisting, deleteAllExistingStubsNotInImport)", () -> {
            importStubs(StubImport.stubImport()
                .stub(get(urlEqualTo("/imported")).willReturn(ok("imported")))
                .stub(get(urlPathEqualTo("/hello")).withId(hello).willReturn(ok("overwritten")))
                .ignoreExisting());
            equal("200 imported", fetch("/imported"), "GET /imported");
            equal("200 hi", fetch("/hello"), "ignoreExisting keeps /hello");
            importStubs(StubImport.stubImport()
                .stub(get(urlPathEqualTo("/hello")).withId(hello).withMetadata(metadata().attr("tag", "greeting"))
                    .willReturn(ok("overwritten")))
                .overwriteExisting());
            equal("200 overwritten", fetch("/hello"), "overwriteExisting replaces /hello");
            importStubs(StubImport.stubImport()
                .stub(get(urlEqualTo("/built")).withId(built).willReturn(ok("built")))
                .build());
            equal("200 built", fetch("/built"), "importStubs(StubImport)");
            wm.importStubMappings(StubImport.stubImport()
                .stub(get(urlEqualTo("/built")).withId(built).willReturn(ok("built again")))
                .build());
            equal("200 built again", fetch("/built"), "importStubMappings(StubImport)");
            wm.importStubMappings(StubImport.stubImport()
                .stub(get(urlPathEqualTo("/hello")).withId(hello).withMetadata(metadata().attr("tag", "greeting"))
                    .willReturn(ok("hi")))
                .deleteAllExistingStubsNotInImport());
            equal(List.of(hello), ids(listAllStubMappings().getMappings()), "deleteAllExistingStubsNotInImport");
            equal(404, Integer.parseInt(fetch("/imported").split(" ")[0]), "GET /imported after the delete-all import");
        });
        check("stubFor the same request again: the newest stub answers (WireMock's order)", () -> {
            StubMapping older = stubFor(get(urlEqualTo("/again")).willReturn(ok("older")));
            StubMapping newer = stubFor(get(urlEqualTo("/again")).willReturn(ok("newer")));
            try {
                equal("200 newer", fetch("/again"), "GET /again");
            } finally {
                removeStub(older);
                removeStub(newer);
            }
        });
        check("resetAllRequests, then the app's requests", () -> {
            resetAllRequests();
            equal("200 hi", fetch("/hello?n=1"), "GET /hello?n=1");
            equal("200 hi", fetch("/hello?n=2"), "GET /hello?n=2");
            equal(404, Integer.parseInt(fetch("/nothing").split(" ")[0]), "GET /nothing");
        });
        check("verify(pattern), verify(n, pattern), verify(strategy, pattern), verifyThat", () -> {
            verify(getRequestedFor(urlPathEqualTo("/hello")));
            verify(2, getRequestedFor(urlPathEqualTo("/hello")));
            verify(moreThanOrExactly(1), getRequestedFor(urlEqualTo("/nothing")));
            verify(lessThan(1), postRequestedFor(anyUrl()));
            wm.verifyThat(getRequestedFor(urlEqualTo("/hello?n=1")));
            wm.verifyThat(1, getRequestedFor(urlEqualTo("/hello?n=2")));
            wm.verifyThat(exactly(3), getRequestedFor(anyUrl()));
            boolean refused = false;
            try {
                verify(5, getRequestedFor(urlPathEqualTo("/hello")));
            } catch (VerificationException expected) {
                refused = true;
            }
            expect(refused, "verify(5, …) of 2 requests throws VerificationException");
        });
        check("findAll / find", () -> {
            List<LoggedRequest> found = findAll(getRequestedFor(urlPathEqualTo("/hello")));
            equal(2, found.size(), "requests to /hello");
            equal("/hello?n=1", found.get(0).getUrl(), "oldest first");
            equal(base + "/hello?n=1", found.get(0).getAbsoluteUrl(), "absoluteUrl is the URL called");
            equal("2", found.get(1).queryParameter("n").firstValue(), "query parameter n");
            equal(1, wm.find(getRequestedFor(urlEqualTo("/nothing"))).size(), "find /nothing");
        });
        check("getAllServeEvents / getServeEvents (and with ServeEventQuery)", () -> {
            List<ServeEvent> events = getAllServeEvents();
            equal(3, events.size(), "serve events");
            ServeEvent newest = events.get(0);
            equal("/nothing", newest.getRequest().getUrl(), "newest first");
            expect(!newest.getWasMatched(), "the miss is not matched");
            ServeEvent hit = events.get(1);
            expect(hit.getWasMatched(), "a hit is matched");
            equal(hello, hit.getStubMapping().getId(), "the hit names its stub");
            equal(200, hit.getResponse().getStatus(), "the hit's response status");
            equal("hi", hit.getResponse().getBodyAsString(), "the hit's response body");
            equal(200, hit.getResponseDefinition().getStatus(), "the hit's response definition");
            equal(3, wm.getServeEvents().size(), "getServeEvents");
            equal(2, getAllServeEvents(ServeEventQuery.forStubMapping(hello)).size(), "events for the stub");
            equal(1, wm.getServeEvents(ServeEventQuery.ALL_UNMATCHED).size(), "unmatched events");
        });
        check("findUnmatchedRequests / findAllUnmatchedRequests", () -> {
            List<LoggedRequest> unmatched = findUnmatchedRequests();
            equal(1, unmatched.size(), "unmatched requests");
            equal("/nothing", unmatched.get(0).getUrl(), "the miss");
            equal(1, wm.findAllUnmatchedRequests().size(), "findAllUnmatchedRequests");
        });
        check("findNearMissesForAllUnmatched / findNearMissesForAllUnmatchedRequests", () -> {
            List<NearMiss> near = findNearMissesForAllUnmatched();
            expect(!near.isEmpty(), "a near miss for /nothing");
            equal("/nothing", near.get(0).getRequest().getUrl(), "its request");
            equal(hello, near.get(0).getStubMapping().getId(), "its closest stub");
            double distance = near.get(0).getMatchResult().getDistance();
            expect(distance > 0 && distance < 1, "a distance strictly between 0 and 1, got " + distance);
            expect(!wm.findNearMissesForAllUnmatchedRequests().isEmpty(), "instance method too");
        });
        check("findNearMissesFor(LoggedRequest) / findTopNearMissesFor", () -> {
            LoggedRequest miss = findUnmatchedRequests().get(0);
            List<NearMiss> near = findNearMissesFor(miss);
            expect(!near.isEmpty(), "near misses for the logged miss");
            equal(hello, near.get(0).getStubMapping().getId(), "closest stub");
            expect(!wm.findTopNearMissesFor(miss).isEmpty(), "instance method too");
        });
        check("findNearMissesFor(RequestPatternBuilder) / findAllNearMissesFor", () -> {
            List<NearMiss> near = findNearMissesFor(getRequestedFor(urlEqualTo("/hellp?n=1")));
            expect(!near.isEmpty(), "near misses for the pattern");
            expect(near.get(0).getRequest().getUrl().startsWith("/hello"), "closest request is to /hello, got "
                + near.get(0).getRequest().getUrl());
            expect(near.get(0).getRequestPattern() != null, "names the pattern");
            expect(!wm.findAllNearMissesFor(getRequestedFor(urlEqualTo("/hellp"))).isEmpty(), "instance method too");
        });
        check("removeServeEvent / removeEvent", () -> {
            List<ServeEvent> events = getAllServeEvents();
            removeServeEvent(events.get(1).getId());
            equal(2, getAllServeEvents().size(), "events after removing one");
            wm.removeEvent(getAllServeEvents().get(1).getId());
            equal(1, getAllServeEvents().size(), "events after removing another");
        });
        check("removeServeEvents / removeEvents (by pattern)", () -> {
            fetch("/hello?n=3");
            List<ServeEvent> removed = removeServeEvents(getRequestedFor(urlEqualTo("/nothing")));
            equal(1, removed.size(), "removed events");
            equal("/nothing", removed.get(0).getRequest().getUrl(), "the removed event");
            equal(0, findUnmatchedRequests().size(), "no miss left");
            equal(1, wm.removeEvents(getRequestedFor(urlPathEqualTo("/hello"))).size(), "instance method");
            equal(0, getAllServeEvents().size(), "journal empty");
        });
        check("removeEventsByStubMetadata / removeEventsByMetadata", () -> {
            fetch("/hello?n=4");
            fetch("/nothing");
            List<ServeEvent> removed = removeEventsByStubMetadata(matchingJsonPath("$.tag", equalTo("greeting")));
            equal(1, removed.size(), "removed events of stubs tagged greeting");
            equal(1, getAllServeEvents().size(), "the miss stays");
            equal(0, wm.removeEventsByMetadata(matchingJsonPath("$.tag", equalTo("other"))).size(), "none tagged other");
        });
        check("scenarios: getAllScenarios, resetScenario, setScenarioState, resetAllScenarios", () -> {
            stubFor(get(urlEqualTo("/flow")).inScenario("flow").whenScenarioStateIs(Scenario.STARTED)
                .willSetStateTo("second").willReturn(ok("first")));
            stubFor(get(urlEqualTo("/flow")).inScenario("flow").whenScenarioStateIs("second")
                .willReturn(ok("second")));
            equal("200 first", fetch("/flow"), "first answer");
            equal("200 second", fetch("/flow"), "second answer");
            List<Scenario> scenarios = getAllScenarios();
            equal(1, scenarios.size(), "scenarios");
            equal("flow", scenarios.get(0).getName(), "scenario name");
            equal("second", scenarios.get(0).getState(), "scenario state");
            expect(scenarios.get(0).getPossibleStates().contains(Scenario.STARTED), "possible states hold Started");
            expect(scenarios.get(0).getPossibleStates().contains("second"), "possible states hold second");
            resetScenario("flow");
            equal("200 first", fetch("/flow"), "after resetScenario");
            setScenarioState("flow", "second");
            equal("200 second", fetch("/flow"), "after setScenarioState");
            resetAllScenarios();
            equal(Scenario.STARTED, wm.getScenarios().get(0).getState(), "after resetAllScenarios");
            wm.setSingleScenarioState("flow", "second");
            equal("second", getAllScenarios().get(0).getState(), "after setSingleScenarioState");
            wm.resetScenarioState("flow");
            equal(Scenario.STARTED, getAllScenarios().get(0).getState(), "after resetScenarioState");
            wm.setSingleScenarioState("flow", "second");
            wm.resetScenarios();
            equal("200 first", fetch("/flow"), "after resetScenarios");
        });
        check("settings: setGlobalFixedDelay, updateSettings, getSettings, setGlobalRandomDelay", () -> {
            setGlobalFixedDelay(20);
            equal(20, getSettings().getFixedDelay(), "fixedDelay");
            wm.setGlobalFixedDelayVariable(10);
            equal(10, wm.getGlobalSettings().getFixedDelay(), "fixedDelay (instance)");
            updateSettings(GlobalSettings.builder().fixedDelay(5).extended(Parameters.one("team", "payments")).build());
            GlobalSettings settings = getSettings();
            equal(5, settings.getFixedDelay(), "fixedDelay after updateSettings");
            equal("payments", settings.getExtended().getString("team"), "extended.team");
            setGlobalRandomDelay(new UniformDistribution(1, 3));
            expect(getSettings().getDelayDistribution() instanceof UniformDistribution, "a uniform delay distribution");
            wm.setGlobalRandomDelayVariable(new UniformDistribution(1, 2));
            equal("200 hi", fetch("/hello"), "answers under a random delay");
            wm.updateGlobalSettings(GlobalSettings.defaults());
            equal(null, getSettings().getDelayDistribution(), "delay distribution after defaults");
        });
        check("saveAllMappings / saveMappings", () -> {
            File folder = new File(root, "mappings");
            saveAllMappings();
            File[] files = folder.listFiles((dir, name) -> name.endsWith(".json"));
            expect(files != null && files.length == 3, "one file per mapping in " + folder + ", got "
                + (files == null ? "none" : files.length));
            String all = "";
            for (File file : files) all += Files.readString(file.toPath());
            expect(all.contains(hello.toString()), "a file holds the /hello mapping");
            wm.saveMappings();
        });
        check("resetToDefault / resetToDefaultMappings bring the saved mappings back", () -> {
            resetToDefault();
            List<UUID> back = ids(listAllStubMappings().getMappings());
            equal(3, back.size(), "mappings after resetToDefault");
            expect(back.contains(hello), "the saved /hello mapping comes back");
            equal("200 hi", fetch("/hello"), "GET /hello answered by the saved mapping");
            stubFor(get(urlEqualTo("/unsaved")).willReturn(ok("unsaved")));
            wm.resetToDefaultMappings();
            equal(3, listAllStubMappings().getMappings().size(), "an unsaved mapping is gone after resetToDefaultMappings");
        });
        check("removeAllMappings / removeMappings, resetMappings, reset, resetRequests", () -> {
            removeAllMappings();
            equal(0, listAllStubMappings().getMappings().size(), "after removeAllMappings");
            wm.removeMappings();
            equal(0, listAllStubMappings().getMappings().size(), "after removeMappings");
            // A deliberate difference: WireMock's DELETE /__admin/mappings also deletes the
            // mapping files; HTTPMock never deletes files on it, so a reset brings them back.
            int afterReset = httpmock ? 3 : 0;
            fetch("/nothing");
            wm.resetMappings();
            equal(afterReset, listAllStubMappings().getMappings().size(), "after resetMappings");
            equal(0, getAllServeEvents().size(), "journal after resetMappings");
            fetch("/nothing");
            wm.resetRequests();
            equal(0, getAllServeEvents().size(), "after resetRequests");
            fetch("/nothing");
            reset();
            equal(0, getAllServeEvents().size(), "journal after reset");
            equal(afterReset, listAllStubMappings().getMappings().size(), "mappings after reset");
        });
        check("loadMappingsFrom (the client posts a folder's mappings)", () -> {
            File folder = Files.createTempDirectory("wm-load").toFile();
            File mappings = new File(folder, "mappings");
            expect(mappings.mkdirs(), "made " + mappings);
            Files.writeString(new File(mappings, "loaded.json").toPath(),
                "{\"request\": {\"method\": \"GET\", \"url\": \"/loaded\"}, \"response\": {\"status\": 200, \"body\": \"loaded\"}}");
            wm.loadMappingsFrom(folder);
            equal("200 loaded", fetch("/loaded"), "GET /loaded");
        });
        HttpServer upstream = upstream();
        String target = "http://127.0.0.1:" + upstream.getAddress().getPort();
        check("startRecording(RecordSpecBuilder), getRecordingStatus, stopRecording", () -> {
            removeAllMappings();
            resetAllRequests();
            equal(RecordingStatus.NeverStarted, getRecordingStatus().getStatus(), "before recording");
            startRecording(recordSpec().forTarget(target).captureHeader("Accept").makeStubsPersistent(false)
                .extractTextBodiesOver(100_000));
            equal(RecordingStatus.Recording, getRecordingStatus().getStatus(), "while recording");
            equal("200 upstream /rec/a", fetch("/rec/a"), "proxied /rec/a");
            equal("200 upstream /rec/b?x=1", fetch("/rec/b?x=1"), "proxied /rec/b");
            SnapshotRecordResult result = stopRecording();
            equal(RecordingStatus.Stopped, wm.getStubRecordingStatus().getStatus(), "after stopping");
            List<StubMapping> recorded = result.getStubMappings();
            equal(2, recorded.size(), "recorded mappings");
            equal("upstream /rec/a", recorded.stream().filter(m -> "/rec/a".equals(m.getRequest().getUrl()))
                .findFirst().orElseThrow().getResponse().getBody(), "recorded body of /rec/a");
            equal(2, listAllStubMappings().getMappings().size(), "the recorded mappings are stubs now");
        });
        check("startRecording(String), stopStubRecording", () -> {
            wm.startStubRecording(target);
            equal("200 upstream /rec/c", fetch("/rec/c"), "proxied /rec/c");
            equal(1, wm.stopStubRecording().getStubMappings().size(), "one recorded mapping");
            startRecording(target);
            equal(RecordingStatus.Recording, getRecordingStatus().getStatus(), "static startRecording(String)");
            stopRecording();
            wm.startStubRecording(recordSpec().forTarget(target).makeStubsPersistent(false));
            equal("200 upstream /rec/d", fetch("/rec/d"), "proxied /rec/d");
            equal(1, stopRecording().getStubMappings().size(), "startStubRecording(spec)");
        });
        check("snapshotRecord() / takeSnapshotRecording(spec)", () -> {
            removeAllMappings();
            resetAllRequests();
            stubFor(any(urlPathMatching("/snap/.*")).willReturn(aResponse().proxiedFrom(target)));
            equal("200 upstream /snap/x", fetch("/snap/x"), "proxied /snap/x");
            equal("200 upstream /snap/y", fetch("/snap/y"), "proxied /snap/y");
            List<StubMapping> all = snapshotRecord(recordSpec().makeStubsPersistent(false));
            equal(2, all.size(), "a snapshot of both");
            removeAllMappings();
            stubFor(any(urlPathMatching("/snap/.*")).willReturn(aResponse().proxiedFrom(target)));
            List<StubMapping> some = wm.takeSnapshotRecording(recordSpec()
                .onlyRequestsMatching(getRequestedFor(urlPathEqualTo("/snap/y"))).makeStubsPersistent(false));
            equal(1, some.size(), "a filtered snapshot");
            equal("/snap/y", some.get(0).getRequest().getUrl(), "the filtered request");
            expect(snapshotRecord() != null, "snapshotRecord()");
            expect(wm.takeSnapshotRecording() != null, "takeSnapshotRecording()");
        });
        upstream.stop(0);
        check("recorded mappings answer without the upstream", () -> {
            equal("200 upstream /snap/y", fetch("/snap/y"), "GET /snap/y from the snapshot");
        });
        check("shutdownServer", () -> {
            shutdownServer();
            boolean down = false;
            for (int attempt = 0; attempt < 300 && !down; attempt++) {
                Thread.sleep(100);
                try {
                    fetch("/hello");
                } catch (java.io.IOException gone) {
                    down = true;
                }
            }
            expect(down, "the server stops answering");
        });

        System.out.println(passed + " passed, " + failed.size() + " failed" + (failed.isEmpty() ? "" : ": " + failed));
        System.exit(failed.isEmpty() ? 0 : 1);
    }
}
