#ifndef HTTPMOCK_TEST_SETTINGS_H
#define HTTPMOCK_TEST_SETTINGS_H

/// The number of test functions Swift Testing runs at once in this process, as set before it
/// started (see TestSettings.c). Read by the suites to report it; 0 when unknown.
int httpmock_test_parallelization_width(void);

/// 1 when TestSettings.c chose the width (six tests per core, at least 8); 0 when the caller had.
int httpmock_test_parallelization_width_set_here(void);

#endif
