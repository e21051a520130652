// A C++ translation unit against the shared libhyperlayout (CTest cxx_link):
// the public headers compile cleanly as C++17 (-Wall -Wextra -pedantic
// -Werror) and declare C linkage.  fields.h is left out: its generic names
// are C11 _Generic, which C++ does not have.
#include "link_check.h"

int main()
{
    return link_check("cxx_link");
}
