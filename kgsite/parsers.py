"""Request parsers shared by every API of the site."""

from rest_framework import exceptions
from rest_framework.parsers import JSONParser


class DepthSafeJSONParser(JSONParser):
    """DRF's JSON parser, with JSON nested too deep for Python's decoder refused as a parse error
    (400) instead of escaping as a RecursionError (500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
