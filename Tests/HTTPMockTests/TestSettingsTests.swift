import Foundation
import HTTPMockTestSettings
import Testing

@Suite("The test run's own settings (Tests/TestSettings)")
struct TestSettingsTests {
    /// Without the cap Swift Testing starts every test at once; on two cores their synchronous
    /// stretches held the cooperative pool for up to 25 s and in-process requests made meanwhile
    /// timed out (Docs/HTTPMock.docc/LinuxNotes.md, "Test-runner facts").
    @Test("Swift Testing runs at most six tests per core at once, unless the caller chose a width")
    func parallelizationIsCapped() {
        let width = Int(httpmock_test_parallelization_width())
        // What the C side counts (online CPUs), not `activeProcessorCount`, which may follow a
        // cgroup's CPU quota on Linux.
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #expect(width > 0, "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is not set")
        if httpmock_test_parallelization_width_set_here() == 1 {
            #expect(width == max(8, cores * 6))
        }
    }
}
