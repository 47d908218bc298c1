// SPDX-License-Identifier: MIT
/*
 * COM1, a 16550A as far as a driver can tell, transmit only.  Bytes
 * written to THR go to our stdout, a line at a time, so lines from
 * different vCPUs never mix.  The transmitter is infinitely fast: LSR
 * always says THR and shift register empty, so a polling writer (our
 * firmware, a kernel's console) never waits.
 *
 * What Linux's 8250 driver checks before it trusts a port, and we answer:
 *  - IER keeps its low 4 bits (the "IER test");
 *  - in loopback (MCR.LOOP) MSR's top nibble mirrors MCR: CTS = RTS,
 *    DSR = DTR, RI = OUT1, DCD = OUT2 (the "LOOP test");
 *  - FCR bit 0 enables the FIFOs, and IIR bits 7:6 then read 11
 *    (16550A); no 64-byte FIFO, no EFR, SCR is a plain scratch register.
 * Interrupts: only "THR empty".  It is pending from the moment IER.ETBEI
 * goes 0 -> 1 and after every THR write (the byte leaves at once), and is
 * cleared by an IIR read that reports it.  The IRQ line is that pending
 * state gated by MCR.OUT2, as on a PC.  The tty layer of a kernel sends
 * from this interrupt, so userspace output needs it; the console does not.
 * No receive: LSR.DR is never set, RBR reads 0.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "pvsmm/layout.h"
#include "serial.h"

#define UART_THR	0	/* DLAB=0: transmit holding / receive buffer */
#define UART_IER	1
#define UART_IIR	2	/* read: interrupt identification; write: FCR */
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_MSR	6
#define UART_SCR	7

#define UART_LCR_DLAB		0x80
#define UART_IER_ETBEI		0x02
#define UART_IIR_NO_INT		0x01
#define UART_IIR_THRI		0x02
#define UART_IIR_FIFOS		0xc0
#define UART_FCR_ENABLE		0x01
#define UART_MCR_DTR		0x01
#define UART_MCR_RTS		0x02
#define UART_MCR_OUT1		0x04
#define UART_MCR_OUT2		0x08
#define UART_MCR_LOOP		0x10
#define UART_LSR_THRE		0x20	/* THR empty */
#define UART_LSR_TEMT		0x40	/* transmitter empty */
#define UART_MSR_CTS		0x10
#define UART_MSR_DSR		0x20
#define UART_MSR_RI		0x40
#define UART_MSR_DCD		0x80

#define LINE_MAX_BYTES		256

static struct {
	pthread_mutex_t lock;
	uint8_t ier, lcr, mcr, scr;
	uint8_t dll, dlm;
	bool fifo;
	bool thre_pending;
	bool irq_level;
	void (*set_irq)(void *ctx, bool level);
	void *irq_ctx;
	char line[LINE_MAX_BYTES];
	size_t len;
} uart = { .lock = PTHREAD_MUTEX_INITIALIZER };

void serial_connect_irq(void (*set_irq)(void *ctx, bool level), void *ctx)
{
	pthread_mutex_lock(&uart.lock);
	uart.set_irq = set_irq;
	uart.irq_ctx = ctx;
	pthread_mutex_unlock(&uart.lock);
}

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

static bool thr_interrupt(void)
{
	return (uart.ier & UART_IER_ETBEI) && uart.thre_pending;
}

static void update_irq(void)
{
	bool level = thr_interrupt() && (uart.mcr & UART_MCR_OUT2) &&
		     !(uart.mcr & UART_MCR_LOOP);

	if (level == uart.irq_level || !uart.set_irq)
		return;
	uart.irq_level = level;
	uart.set_irq(uart.irq_ctx, level);
}

/* Modem status: in loopback the outputs come back as inputs. */
static uint8_t read_msr(void)
{
	uint8_t m = uart.mcr;

	if (!(m & UART_MCR_LOOP))
		return UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS;
	return (uint8_t)(((m & UART_MCR_RTS) ? UART_MSR_CTS : 0) |
			 ((m & UART_MCR_DTR) ? UART_MSR_DSR : 0) |
			 ((m & UART_MCR_OUT1) ? UART_MSR_RI : 0) |
			 ((m & UART_MCR_OUT2) ? UART_MSR_DCD : 0));
}

static uint8_t read_reg(uint16_t offset)
{
	bool dlab = uart.lcr & UART_LCR_DLAB;
	uint8_t v;

	switch (offset) {
	case UART_THR:
		return dlab ? uart.dll : 0;
	case UART_IER:
		return dlab ? uart.dlm : uart.ier;
	case UART_IIR:
		v = uart.fifo ? UART_IIR_FIFOS : 0;
		if (!thr_interrupt())
			return v | UART_IIR_NO_INT;
		uart.thre_pending = false;	/* reading it acknowledges */
		return v | UART_IIR_THRI;
	case UART_LCR:
		return uart.lcr;
	case UART_MCR:
		return uart.mcr;
	case UART_LSR:
		return UART_LSR_THRE | UART_LSR_TEMT;
	case UART_MSR:
		return read_msr();
	default:
		return uart.scr;
	}
}

static void write_reg(uint16_t offset, uint8_t value)
{
	bool dlab = uart.lcr & UART_LCR_DLAB;

	switch (offset) {
	case UART_THR:
		if (dlab) {
			uart.dll = value;
		} else {
			transmit(value);
			uart.thre_pending = true;	/* sent: empty again */
		}
		break;
	case UART_IER:
		if (dlab) {
			uart.dlm = value;
			break;
		}
		/* THRE interrupts on enabling when THR is empty (always). */
		if ((value & UART_IER_ETBEI) && !(uart.ier & UART_IER_ETBEI))
			uart.thre_pending = true;
		uart.ier = value & 0x0f;
		break;
	case UART_IIR:		/* FCR */
		uart.fifo = value & UART_FCR_ENABLE;
		break;
	case UART_LCR:
		uart.lcr = value;
		break;
	case UART_MCR:
		uart.mcr = value & 0x1f;
		break;
	case UART_SCR:
		uart.scr = value;
		break;
	default:		/* LSR, MSR: read-only */
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
	update_irq();
	pthread_mutex_unlock(&uart.lock);
}

void serial_flush(void)
{
	pthread_mutex_lock(&uart.lock);
	if (uart.len)
		transmit('\n');	/* a newline always writes the line out */
	pthread_mutex_unlock(&uart.lock);
}

static bool serial_pio(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		       uint8_t size, void *ctx)
{
	(void)v;
	(void)ctx;
	serial_access(port - PVSMM_SERIAL_PORT, in, data, size);
	return true;
}

void serial_register(struct pio_table *t)
{
	pio_claim(t, PVSMM_SERIAL_PORT, 8, serial_pio, NULL, "COM1");
}
