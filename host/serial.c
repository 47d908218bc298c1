// SPDX-License-Identifier: MIT
/*
 * A minimal 8250 UART on COM1: transmit only.  Bytes written to THR go to
 * our stdout, a line at a time, so lines from different vCPUs never mix.
 * The line status register always reports the transmitter empty, so the
 * guest never waits.  No receive, no interrupts.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "serial.h"

#define UART_THR	0	/* DLAB=0: transmit holding / receive buffer */
#define UART_IER	1
#define UART_IIR	2	/* read: interrupt identification */
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_MSR	6
#define UART_SCR	7

#define UART_LCR_DLAB		0x80
#define UART_IIR_NO_INT		0x01
#define UART_LSR_THRE		0x20	/* THR empty */
#define UART_LSR_TEMT		0x40	/* transmitter empty */
#define UART_MSR_DCD_DSR_CTS	0xb0

#define LINE_MAX_BYTES		256

static struct {
	pthread_mutex_t lock;
	uint8_t regs[8];	/* IER, LCR, MCR, SCR as last written */
	uint8_t dll, dlm;
	char line[LINE_MAX_BYTES];
	size_t len;
} uart = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void write_all(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n <= 0)
			return;	/* nowhere to report it: drop the output */
		buf += n;
		len -= (size_t)n;
	}
}

static void transmit(uint8_t c)
{
	uart.line[uart.len++] = (char)c;
	if (c == '\n' || uart.len == sizeof(uart.line)) {
		write_all(uart.line, uart.len);
		uart.len = 0;
	}
}

static uint8_t read_reg(uint16_t offset)
{
	bool dlab = uart.regs[UART_LCR] & UART_LCR_DLAB;

	switch (offset) {
	case UART_THR:
		return dlab ? uart.dll : 0;
	case UART_IER:
		return dlab ? uart.dlm : uart.regs[UART_IER];
	case UART_IIR:
		return UART_IIR_NO_INT;
	case UART_LSR:
		return UART_LSR_THRE | UART_LSR_TEMT;
	case UART_MSR:
		return UART_MSR_DCD_DSR_CTS;
	default:
		return uart.regs[offset];
	}
}

static void write_reg(uint16_t offset, uint8_t value)
{
	bool dlab = uart.regs[UART_LCR] & UART_LCR_DLAB;

	switch (offset) {
	case UART_THR:
		if (dlab)
			uart.dll = value;
		else
			transmit(value);
		break;
	case UART_IER:
		if (dlab)
			uart.dlm = value;
		else
			uart.regs[UART_IER] = value & 0x0f;
		break;
	case UART_IIR:	/* FCR: no FIFOs to control */
	case UART_LSR:
	case UART_MSR:
		break;
	default:
		uart.regs[offset] = value;
		break;
	}
}

void serial_access(uint16_t offset, bool in, uint8_t *data, uint8_t size)
{
	pthread_mutex_lock(&uart.lock);
	if (in) {
		data[0] = read_reg(offset);
		if (size > 1)
			memset(data + 1, 0xff, size - 1u);
	} else {
		write_reg(offset, data[0]);
	}
	pthread_mutex_unlock(&uart.lock);
}

void serial_flush(void)
{
	pthread_mutex_lock(&uart.lock);
	if (uart.len)
		transmit('\n');	/* a newline always writes the line out */
	pthread_mutex_unlock(&uart.lock);
}
