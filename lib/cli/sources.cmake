# One file per subcommand (see commands.h).
file(GLOB DSANALYZE_CLI_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cc)
target_sources(dsanalyze_lib_cli PRIVATE ${DSANALYZE_CLI_SOURCES})
