#include "opkit/cli/run.hpp"

int
main(int argc, char** argv)
{
  return opkit::cli::run(argc, argv);
}
