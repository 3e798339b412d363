from . import baseline, relation
