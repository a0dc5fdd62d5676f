# Installs what makes cloudsmd a service (run by `cmake --install` and by CPack, through
# install(CODE) in CMakeLists.txt, so that the paths are the install's, not the build's):
#   UNIT_DIR/cloudsmd.service    packaging/cloudsmd.service.in, with the install's paths
#   ETC/cloudsm/cloudsmd.conf    the example configuration (cmake/example_config.cmake)
#   VAR/lib/cloudsm/             the state directory, mode 0700
# ETC and VAR are /etc and /var for the prefix /usr (a Debian system, the package), else under
# the prefix, as GNUInstallDirs has them. DESTDIR is honoured (file(INSTALL) adds it).
# In: CLOUDSM_SOURCE_DIR, CLOUDSM_BINARY_DIR, CLOUDSM_SYSTEMD_UNIT_DIR, CLOUDSM_SBINDIR (relative
# to the prefix unless absolute).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(etc /etc)
  set(var /var)
else()
  set(etc "${CMAKE_INSTALL_PREFIX}/etc")
  set(var "${CMAKE_INSTALL_PREFIX}/var")
endif()
foreach(dir CLOUDSM_SYSTEMD_UNIT_DIR CLOUDSM_SBINDIR)
  if(NOT IS_ABSOLUTE "${${dir}}")
    set(${dir} "${CMAKE_INSTALL_PREFIX}/${${dir}}")
  endif()
endforeach()
set(SBINDIR "${CLOUDSM_SBINDIR}")
set(SYSCONFDIR "${etc}")
file(READ "${CLOUDSM_SOURCE_DIR}/packaging/cloudsmd.service.in" unit)
string(CONFIGURE "${unit}" unit @ONLY)
file(WRITE "${CLOUDSM_BINARY_DIR}/install/cloudsmd.service" "${unit}")
file(INSTALL "${CLOUDSM_BINARY_DIR}/install/cloudsmd.service"
     DESTINATION "${CLOUDSM_SYSTEMD_UNIT_DIR}")
file(INSTALL "${CLOUDSM_BINARY_DIR}/cloudsmd.conf" DESTINATION "${etc}/cloudsm")
file(MAKE_DIRECTORY "$ENV{DESTDIR}${var}/lib/cloudsm")
file(CHMOD "$ENV{DESTDIR}${var}/lib/cloudsm" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE
     OWNER_EXECUTE)
message(STATUS "Installing: $ENV{DESTDIR}${var}/lib/cloudsm (the state directory)")
