def log_weights(writer, model, step):
    """A helper that takes the writer as an argument."""
    for name, parameter in model.named_parameters():
        writer.add_histogram(name, parameter, step)
