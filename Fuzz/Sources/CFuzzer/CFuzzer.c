// SwiftPM needs a source file in a C target; the header is all there is.
#include "CFuzzer.h"
