from .stream_metrics import StreamSegMetrics
