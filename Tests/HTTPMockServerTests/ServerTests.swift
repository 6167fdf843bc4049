#if Server
import NIOCore
#endif
