try:
    pass
except* :
    pass
