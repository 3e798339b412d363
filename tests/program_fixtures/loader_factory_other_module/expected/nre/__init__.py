from .framework import SentenceRE
