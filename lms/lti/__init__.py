"""LTI 1.3 with pylti1p3: the tool configuration read from Cutoff's platforms, launch
storage without cookies, key rotation and service connectors (``tool``)."""
