/* BackgroundSync: a thread of its own that runs fdatasync(2) on one file at a time, without
   the GIL, so that the server's one Python thread can go on with its batch (the reply, the
   seats' updates) while the disk works, and wait only for what is left of the sync.

   A Python thread cannot do this: it needs the GIL to start the sync and again to report it,
   and the server's thread holds the GIL while it works, so the two would take turns instead
   of working side by side. Where this module is not built, durability.py syncs when the
   result is waited for, which is what the server did before. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

typedef enum { IDLE, ASKED, DONE, CLOSING } Phase;

typedef struct {
    PyObject_HEAD
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    Phase phase;
    int fd;      /* the file of the sync asked for */
    int error;   /* the errno of the last sync, 0 when it worked */
    int running; /* the thread was started and not yet joined */
    pid_t owner; /* the process whose thread it is (a forked child has no such thread) */
} BackgroundSync;

static void *sync_files(void *argument) {
    BackgroundSync *self = argument;
    pthread_mutex_lock(&self->lock);
    for (;;) {
        while (self->phase != ASKED && self->phase != CLOSING)
            pthread_cond_wait(&self->changed, &self->lock);
        if (self->phase == CLOSING)
            break;
        int fd = self->fd;
        pthread_mutex_unlock(&self->lock);
        int result;
        do {
            result = fdatasync(fd);
        } while (result != 0 && errno == EINTR);
        int error = result == 0 ? 0 : errno;
        pthread_mutex_lock(&self->lock);
        self->error = error;
        __atomic_store_n(&self->phase, DONE, __ATOMIC_RELEASE); /* wait_done may be spinning */
        pthread_mutex_unlock(&self->lock);
        pthread_cond_broadcast(&self->changed);
        pthread_mutex_lock(&self->lock);
    }
    pthread_mutex_unlock(&self->lock);
    return NULL;
}

static int BackgroundSync_init(BackgroundSync *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, ":BackgroundSync", keywords))
        return -1;
    if (self->running) {
        PyErr_SetString(PyExc_RuntimeError, "this BackgroundSync is already started");
        return -1;
    }
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->changed, NULL);
    self->phase = IDLE;
    self->fd = -1;
    self->error = 0;
    /* Signals go to Python's thread, whose handlers run there, never to this one. */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    int error = pthread_create(&self->thread, NULL, sync_files, self);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (error != 0) {
        errno = error;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    self->running = 1;
    self->owner = getpid();
    return 0;
}

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Blocks, without the GIL, until the sync under way (if one) is done; the lock is held after.
   For up to spin_ns it polls instead of sleeping, yielding its core at each look: a thread
   that sleeps is woken by the sync thread's signal only some tens of microseconds later on a
   virtual machine, where an idle core must first be woken itself. */
static void wait_done(BackgroundSync *self, long long spin_ns) {
    Py_BEGIN_ALLOW_THREADS
    if (spin_ns > 0) {
        long long until = monotonic_ns() + spin_ns;
        while (__atomic_load_n(&self->phase, __ATOMIC_ACQUIRE) == ASKED && monotonic_ns() < until)
            sched_yield(); /* the sync thread may need this very core to report back */
    }
    pthread_mutex_lock(&self->lock);
    while (self->phase == ASKED)
        pthread_cond_wait(&self->changed, &self->lock);
    Py_END_ALLOW_THREADS
}

/* Whether the thread can be asked (if not, the error is set): not closed, not forked. */
static int usable(BackgroundSync *self) {
    if (!self->running) {
        PyErr_SetString(PyExc_ValueError, "this BackgroundSync is closed");
        return 0;
    }
    if (getpid() != self->owner) {
        PyErr_SetString(PyExc_RuntimeError, "this BackgroundSync's thread is in the process "
                                             "that made it, not in this forked one");
        return 0;
    }
    return 1;
}

static PyObject *BackgroundSync_start(BackgroundSync *self, PyObject *argument) {
    int fd = PyObject_AsFileDescriptor(argument);
    if (fd < 0 || !usable(self))
        return NULL;
    pthread_mutex_lock(&self->lock);
    if (self->phase != IDLE) {
        pthread_mutex_unlock(&self->lock);
        PyErr_SetString(PyExc_RuntimeError, "a sync is already under way: wait for it first");
        return NULL;
    }
    self->fd = fd;
    self->phase = ASKED;
    pthread_mutex_unlock(&self->lock);
    pthread_cond_signal(&self->changed); /* unlocked: the thread wakes to a free lock */
    Py_RETURN_NONE;
}

static PyObject *BackgroundSync_wait(BackgroundSync *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"spin", NULL};
    double spin = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|d:wait", keywords, &spin))
        return NULL;
    if (!(spin >= 0.0 && spin <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "spin is seconds, from 0 to 1");
        return NULL;
    }
    if (!usable(self))
        return NULL;
    wait_done(self, (long long)(spin * 1e9));
    Phase phase = self->phase;
    int error = self->error;
    if (phase == DONE)
        self->phase = IDLE;
    pthread_mutex_unlock(&self->lock);
    if (phase != DONE) {
        PyErr_SetString(PyExc_RuntimeError, "no sync was started");
        return NULL;
    }
    if (error != 0) {
        errno = error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

static void stop_thread(BackgroundSync *self) {
    if (!self->running)
        return;
    if (getpid() != self->owner) { /* forked: the thread (and its sync) are the parent's */
        self->running = 0;
        return;
    }
    wait_done(self, 0);
    self->phase = CLOSING;
    pthread_cond_broadcast(&self->changed);
    pthread_mutex_unlock(&self->lock);
    Py_BEGIN_ALLOW_THREADS
    pthread_join(self->thread, NULL);
    Py_END_ALLOW_THREADS
    self->running = 0;
    pthread_cond_destroy(&self->changed);
    pthread_mutex_destroy(&self->lock);
}

static PyObject *BackgroundSync_close(BackgroundSync *self, PyObject *unused) {
    stop_thread(self);
    Py_RETURN_NONE;
}

static PyObject *BackgroundSync_busy(BackgroundSync *self, void *closure) {
    if (!self->running)
        Py_RETURN_FALSE;
    pthread_mutex_lock(&self->lock);
    int busy = self->phase != IDLE;
    pthread_mutex_unlock(&self->lock);
    return PyBool_FromLong(busy);
}

static void BackgroundSync_dealloc(BackgroundSync *self) {
    stop_thread(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef BackgroundSync_methods[] = {
    {"start", (PyCFunction)BackgroundSync_start, METH_O,
     "start(fd): start syncing the file's written data (fdatasync) on the sync thread; "
     "RuntimeError if a sync is under way."},
    {"wait", (PyCFunction)(void (*)(void))BackgroundSync_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(spin=0.0): block (without the GIL) until the sync started is done, polling for up "
     "to spin seconds before sleeping; OSError if it failed, RuntimeError if none was started."},
    {"close", (PyCFunction)BackgroundSync_close, METH_NOARGS,
     "close(): let a sync under way finish, then stop the thread (again: nothing)."},
    {NULL}};

static PyGetSetDef BackgroundSync_getset[] = {
    {"busy", (getter)BackgroundSync_busy, NULL,
     "A sync was started and not yet waited for.", NULL},
    {NULL}};

static PyTypeObject BackgroundSyncType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "starhall.server.background_sync.BackgroundSync",
    .tp_doc = "A thread that runs fdatasync on one file at a time, without the GIL.",
    .tp_basicsize = sizeof(BackgroundSync),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BackgroundSync_init,
    .tp_dealloc = (destructor)BackgroundSync_dealloc,
    .tp_methods = BackgroundSync_methods,
    .tp_getset = BackgroundSync_getset,
};

static struct PyModuleDef background_sync_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "starhall.server.background_sync",
    .m_doc = "fdatasync on a thread of its own, without the GIL (see durability.py).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit_background_sync(void) {
    if (PyType_Ready(&BackgroundSyncType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&background_sync_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&BackgroundSyncType);
    if (PyModule_AddObject(module, "BackgroundSync", (PyObject *)&BackgroundSyncType) < 0) {
        Py_DECREF(&BackgroundSyncType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
