# The words of a corpus, as a set (a vocabulary builder's first step).
CORPUS = ["the cat sat on the mat", "a dog ran to the cat", "the dog sat"]


def word_set():
    words = set()
    for line in CORPUS:
        words.update(line.split(" "))
    return words
