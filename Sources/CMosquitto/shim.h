#ifndef TALKING_CLOCK_CMOSQUITTO_SHIM_H
#define TALKING_CLOCK_CMOSQUITTO_SHIM_H
/* libmosquitto (Debian libmosquitto-dev), used in external-loop mode only: the owner's epoll loop
   watches mosquitto_socket() and calls mosquitto_loop_read/write/misc; mosquitto_loop_start (the
   library thread) is never called. Imported by the MQTT target only. */
#include <mosquitto.h>
#endif
